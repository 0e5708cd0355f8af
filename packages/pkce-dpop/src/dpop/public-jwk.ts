import type { JWK } from 'jose';

/** Members that carry private or symmetric key material (RFC 7518 §6.2.2, §6.3.2, §6.4.1; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv', 'seed'] as const;

/** The public members of each asymmetric key type (RFC 7518 §6.2.1, §6.3.1; RFC 8037 §2). */
const PUBLIC_MEMBERS: Record<string, readonly string[]> = {
  EC: ['kty', 'crv', 'x', 'y'],
  RSA: ['kty', 'n', 'e'],
  OKP: ['kty', 'crv', 'x'],
};

/** True when the JWK holds any private member: RFC 9449 §4.3 point 7 forbids it in a proof. */
export function hasPrivateMembers(jwk: Record<string, unknown>): boolean {
  return PRIVATE_MEMBERS.some((member) => member in jwk);
}

/**
 * The public key alone, with only the members its key type defines, as a proof header carries it (RFC 9449
 * §4.2). Key-management JWKs also carry `kid`, `alg` and `use`, which a proof does not need.
 */
export function toPublicJwk(jwk: JWK): JWK {
  const members = typeof jwk.kty === 'string' ? PUBLIC_MEMBERS[jwk.kty] : undefined;
  if (!members) throw new TypeError('DPoP key must be an EC, RSA or OKP public key');
  if (hasPrivateMembers(jwk as Record<string, unknown>))
    throw new TypeError('DPoP public key must not hold private members');
  const result: Record<string, unknown> = {};
  for (const member of members) {
    const value = (jwk as Record<string, unknown>)[member];
    if (typeof value !== 'string') throw new TypeError(`DPoP public key lacks "${member}"`);
    result[member] = value;
  }
  return result as JWK;
}

/** The curve each signing algorithm needs (RFC 7518 §3.4). */
export function curveOf(alg: 'ES256' | 'ES384'): 'P-256' | 'P-384' {
  return alg === 'ES256' ? 'P-256' : 'P-384';
}
