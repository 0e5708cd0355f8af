import { randomUUID } from 'node:crypto';
import type { CredentialConfiguration } from '../config.js';
import type { IssueInput } from './sd-jwt-vc.js';
import type { IssuerKeys } from './issuer-keys.js';

/** did:jwk of the holder key (the credential subject's id): the key members only, base64url JSON. */
function didJwk(jwk: Record<string, unknown>): string {
  const members =
    jwk.kty === 'EC' ? ['crv', 'kty', 'x', 'y'] : jwk.kty === 'OKP' ? ['crv', 'kty', 'x'] : ['e', 'kty', 'n'];
  const key = Object.fromEntries(members.map((m) => [m, jwk[m]]));
  return `did:jwk:${Buffer.from(JSON.stringify(key), 'utf8').toString('base64url')}`;
}

/**
 * A W3C VC-JWT (VC Data Model 1.1 §6.3.1, the `jwt_vc_json` format of OpenID4VCI 1.0 Appendix A.1.1): `vc` claim
 * with the types of the configuration, `credentialSubject` = the claims with the holder's did:jwk as id (the proof
 * key binds it, as `sub`), `credentialStatus` a BitstringStatusListEntry; `iss` = the credential issuer, `nbf`,
 * `exp`, `jti`; typ `JWT`, signed by the tenant's issuer key.
 */
export async function issueVcJwt(
  keys: IssuerKeys,
  input: IssueInput & { configuration: CredentialConfiguration },
): Promise<string> {
  const iat = Math.floor(input.now.getTime() / 1000);
  const subject = didJwk(input.holderJwk as Record<string, unknown>);
  const id = `urn:uuid:${randomUUID()}`;
  const payload = {
    iss: input.credentialIssuer,
    sub: subject,
    jti: id,
    nbf: iat,
    iat,
    exp: iat + input.configuration.validitySeconds,
    cnf: { jwk: input.holderJwk },
    vc: {
      '@context': ['https://www.w3.org/2018/credentials/v1'],
      id,
      type: ['VerifiableCredential', ...(input.configuration.type ?? [])],
      issuer: input.credentialIssuer,
      issuanceDate: new Date(iat * 1000).toISOString(),
      expirationDate: new Date((iat + input.configuration.validitySeconds) * 1000).toISOString(),
      credentialSubject: { id: subject, ...input.claims },
      ...input.status,
    },
  };
  return keys.signJwt(input.tenantId, payload, { typ: 'JWT' });
}
