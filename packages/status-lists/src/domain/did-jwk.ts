import type { JWK } from 'jose';

/**
 * did:jwk (https://github.com/quartzjer/did-jwk/blob/main/spec.md): the public JWK's JSON, base64url. Only the
 * members that define the key go in (no kid, alg or use), so the DID names the key and nothing else; its one
 * verification method is `#0`.
 */
const KEY_MEMBERS: Record<string, readonly string[]> = {
  EC: ['crv', 'kty', 'x', 'y'],
  OKP: ['crv', 'kty', 'x'],
  RSA: ['e', 'kty', 'n'],
};

export function didJwkOf(jwk: JWK): string {
  const members = KEY_MEMBERS[jwk.kty ?? ''];
  if (!members) throw new Error(`no did:jwk for key type ${String(jwk.kty)}`);
  const key: Record<string, unknown> = {};
  for (const m of members) key[m] = (jwk as Record<string, unknown>)[m];
  return `did:jwk:${Buffer.from(JSON.stringify(key), 'utf8').toString('base64url')}`;
}
