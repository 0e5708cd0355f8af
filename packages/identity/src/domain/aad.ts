/**
 * Additional authenticated data of each sealed value: the tenant, the record and the column's purpose. A ciphertext
 * copied onto another identity, binding, column or tenant fails to open instead of lending its content there.
 */
const aad = (...parts: string[]) => new TextEncoder().encode(JSON.stringify(['tessera-identity', ...parts]));

export const claimsAad = (tenantId: string, identityId: string) => aad('claims', tenantId, identityId);
export const holderKeyAad = (tenantId: string, bindingId: string) => aad('wallet-holder-key', tenantId, bindingId);
export const subjectAad = (tenantId: string, bindingId: string, issuer: string) =>
  aad('federation-subject', tenantId, bindingId, issuer);
