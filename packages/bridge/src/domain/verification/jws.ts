import { constants, createPublicKey, hash, verify as cryptoVerify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';

/**
 * Compact JWS helpers (RFC 7515) used by every signature check. Only asymmetric algorithms are accepted: `none`
 * and the HMAC family are refused before any key is touched (RFC 8725 §3.1, §3.2).
 */
export const ACCEPTED_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519', 'PS256', 'PS384', 'RS256'] as const;

export interface DecodedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  compact: string;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Decodes a compact JWS without verifying it; null when it is not one, or its payload is not a JSON object, or its
 * header carries `crit` (RFC 7515 §4.1.11: a recipient must refuse a JWS whose critical extensions it does not
 * understand, and this verifier understands none).
 */
export function decodeJws(compact: string): DecodedJws | null {
  const parts = compact.split('.');
  if (parts.length !== 3 || parts[0] === '' || parts[1] === '') return null;
  for (const part of parts) if (!BASE64URL.test(part)) return null;
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as unknown;
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown;
    if (!isObject(header) || !isObject(payload) || 'crit' in header) return null;
    return { header, payload, compact };
  } catch {
    return null;
  }
}

export const acceptedAlgorithm = (alg: unknown): alg is string =>
  typeof alg === 'string' && (ACCEPTED_ALGORITHMS as readonly string[]).includes(alg);

/**
 * Imported public keys by JWK: issuer keys repeat across presentations, and importing a key costs about as much as
 * verifying with it. Bounded; the oldest entry leaves first.
 */
const KEY_CACHE_LIMIT = 512;
const keyCache = new Map<string, KeyObject | null>();

function publicKeyOf(jwk: JWK): KeyObject | null {
  const { kty, crv, x, y, n, e } = jwk;
  const id = JSON.stringify([kty, crv, x, y, n, e]);
  let key = keyCache.get(id);
  if (key === undefined) {
    try {
      key = createPublicKey({ key: { kty, crv, x, y, n, e } as JsonWebKey, format: 'jwk' });
    } catch {
      key = null;
    }
    if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.delete(keyCache.keys().next().value!);
    keyCache.set(id, key);
  }
  return key;
}

/** RFC 7518 §3.1 (and RFC 8037 §3.1): what each accepted `alg` requires of the key, and how node verifies it. */
const ALGORITHMS: Record<string, { kty: string; crv?: readonly string[]; hash: string | null; options?: object }> = {
  ES256: { kty: 'EC', crv: ['P-256'], hash: 'sha256', options: { dsaEncoding: 'ieee-p1363' } },
  ES384: { kty: 'EC', crv: ['P-384'], hash: 'sha384', options: { dsaEncoding: 'ieee-p1363' } },
  ES512: { kty: 'EC', crv: ['P-521'], hash: 'sha512', options: { dsaEncoding: 'ieee-p1363' } },
  EdDSA: { kty: 'OKP', crv: ['Ed25519', 'Ed448'], hash: null },
  Ed25519: { kty: 'OKP', crv: ['Ed25519'], hash: null },
  PS256: { kty: 'RSA', hash: 'sha256', options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } },
  PS384: { kty: 'RSA', hash: 'sha384', options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 48 } },
  RS256: { kty: 'RSA', hash: 'sha256', options: { padding: constants.RSA_PKCS1_PADDING } },
};

/**
 * True when `compact` verifies under `jwk` with its header algorithm, which must be an accepted one and fit the key
 * (RFC 8725 §3.1: the algorithm is never taken from the token alone). Synchronous node:crypto: a presentation's
 * two or three verifications cost no thread-pool round trips.
 */
export async function verifyJws(compact: string, jwk: JWK, alg: string): Promise<boolean> {
  const spec = ALGORITHMS[alg];
  if (
    !spec ||
    !acceptedAlgorithm(alg) ||
    'd' in jwk ||
    jwk.kty !== spec.kty ||
    (spec.crv && !spec.crv.includes(String(jwk.crv)))
  )
    return false;
  const dot = compact.lastIndexOf('.');
  if (dot < 0) return false;
  const key = publicKeyOf(jwk);
  if (!key) return false;
  try {
    return cryptoVerify(
      spec.hash,
      Buffer.from(compact.slice(0, dot), 'ascii'),
      { key, ...spec.options } as never,
      Buffer.from(compact.slice(dot + 1), 'base64url'),
    );
  } catch {
    return false;
  }
}

/** RFC 9278 JWK thumbprint URI of a public key (RFC 7638, SHA-256): the holder key of `credential-key`. */
export async function jwkThumbprintUri(jwk: JWK): Promise<string> {
  return `urn:ietf:params:oauth:jwk-thumbprint:sha-256:${await calculateJwkThumbprint(jwk, 'sha256')}`;
}

/** SHA-256 of the UTF-8 text, base64url. One-shot: a presentation hashes each disclosure, its sd_hash and itself. */
export const sha256Base64url = (text: string) => hash('sha256', text, 'base64url');

export const isObjectValue = isObject;
