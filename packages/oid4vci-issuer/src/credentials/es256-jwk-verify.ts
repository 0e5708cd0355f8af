import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/**
 * ES256 verification of a compact JWS signed by a P-256 public JWK, with node:crypto: the key imported once per
 * JWK (bounded cache keyed by its coordinates, the oldest dropped when full) and the r||s signature (RFC 7518
 * §3.4) verified synchronously. WebCrypto through jose imports the key and runs the verification as an
 * asynchronous job on every call, several times the CPU of this for one proof.
 *
 * Answers null when the token is outside this fast path (a `crit` or `b64` header, a JWK that is not a bare
 * P-256 public key, or one with members such as `use`, `key_ops` or `ext` that WebCrypto's import judges): the
 * caller then verifies with jose, so that such tokens are judged exactly as before.
 */
const BARE_MEMBERS = new Set(['kty', 'crv', 'x', 'y', 'kid']);
const MAX_KEYS = 10_000;
const keys = new Map<string, KeyObject | null>();
/** A P-256 signature in JWS form is 64 bytes: 86 base64url characters, no padding. */
const SIGNATURE = /^[A-Za-z0-9_-]{86}$/;

function keyOf(x: string, y: string): KeyObject | null {
  const cacheKey = `${x}.${y}`;
  const known = keys.get(cacheKey);
  if (known !== undefined) return known;
  let key: KeyObject | null;
  try {
    key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x, y }, format: 'jwk' });
  } catch {
    key = null; // not a point of the curve: never verifies
  }
  if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
  keys.set(cacheKey, key);
  return key;
}

export function verifyEs256WithJwk(
  compact: string,
  header: Record<string, unknown>,
  jwk: Record<string, unknown>,
): boolean | null {
  if (header.crit !== undefined || header.b64 !== undefined) return null;
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string') return null;
  for (const member in jwk) if (!BARE_MEMBERS.has(member)) return null;
  if (header.alg !== 'ES256') return false;
  const dot = compact.lastIndexOf('.');
  const signature = compact.slice(dot + 1);
  if (!SIGNATURE.test(signature)) return false;
  const key = keyOf(jwk.x, jwk.y);
  if (key === null) return false;
  return verify(
    'sha256',
    Buffer.from(compact.slice(0, dot), 'ascii'),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
}
