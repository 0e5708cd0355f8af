import { createPublicKey } from 'node:crypto';
import type { JWK } from 'jose';

/**
 * DID resolution for the two self-contained methods a wallet or an issuer uses without a network: did:jwk (the DID
 * is the base64url JWK) and did:key (multibase base58btc of a multicodec public key: Ed25519, P-256, P-384).
 * Anything else resolves to null (and so to "issuer not trusted" or "holder key unknown").
 */
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58Decode(text: string): Uint8Array | null {
  let value = 0n;
  for (const ch of text) {
    const digit = BASE58.indexOf(ch);
    if (digit < 0) return null;
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  for (const ch of text) {
    if (ch !== '1') break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

/** SubjectPublicKeyInfo DER prefixes (RFC 5480, RFC 8410) of the key types did:key carries here. */
const SPKI_PREFIX: Record<string, { prefix: string; length: number }> = {
  ed25519: { prefix: '302a300506032b6570032100', length: 32 },
  'p-256': { prefix: '3039301306072a8648ce3d020106082a8648ce3d030107032200', length: 33 },
  'p-384': { prefix: '3046301006072a8648ce3d020106052b81040022033200', length: 49 },
};

/** Multicodec varint prefixes: ed25519-pub 0xed, p256-pub 0x1200, p384-pub 0x1201. */
function keyTypeOf(bytes: Uint8Array): { type: string; key: Uint8Array } | null {
  if (bytes[0] === 0xed && bytes[1] === 0x01) return { type: 'ed25519', key: bytes.subarray(2) };
  if (bytes[0] === 0x80 && bytes[1] === 0x24) return { type: 'p-256', key: bytes.subarray(2) };
  if (bytes[0] === 0x81 && bytes[1] === 0x24) return { type: 'p-384', key: bytes.subarray(2) };
  return null;
}

const publicMembers = (jwk: JWK): JWK => {
  const { kty, crv, x, y, n, e } = jwk;
  return Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined)) as JWK;
};

/** The DID of a DID URL (`did:...#fragment` → `did:...`). */
export const didOf = (didUrl: string) => didUrl.split('#')[0]!;

/**
 * Resolved keys by DID: a did:jwk or did:key names its key itself, so a resolution never changes; the trusted
 * issuers' DIDs are resolved for every presentation. Bounded; the oldest entry leaves first.
 */
const RESOLVED_LIMIT = 512;
const resolved = new Map<string, Readonly<JWK> | null>();

/** The public JWK of a did:jwk or did:key (or a DID URL of one), or null. */
export function resolveDidKey(didOrUrl: string): JWK | null {
  const did = didOf(didOrUrl);
  let jwk = resolved.get(did);
  if (jwk === undefined) {
    jwk = resolve(did);
    if (jwk) Object.freeze(jwk);
    if (resolved.size >= RESOLVED_LIMIT) resolved.delete(resolved.keys().next().value!);
    resolved.set(did, jwk);
  }
  // A copy: the caller may keep or change it.
  return jwk ? { ...jwk } : null;
}

function resolve(did: string): JWK | null {
  try {
    if (did.startsWith('did:jwk:')) {
      const jwk = JSON.parse(Buffer.from(did.slice('did:jwk:'.length), 'base64url').toString('utf8')) as JWK;
      if (typeof jwk !== 'object' || jwk === null || typeof jwk.kty !== 'string' || 'd' in jwk) return null;
      return publicMembers(jwk);
    }
    if (did.startsWith('did:key:z')) {
      const bytes = base58Decode(did.slice('did:key:z'.length));
      const typed = bytes ? keyTypeOf(bytes) : null;
      const spki = typed ? SPKI_PREFIX[typed.type] : undefined;
      if (!typed || !spki || typed.key.length !== spki.length) return null;
      const der = Buffer.concat([Buffer.from(spki.prefix, 'hex'), typed.key]);
      return publicMembers(createPublicKey({ key: der, format: 'der', type: 'spki' }).export({ format: 'jwk' }) as JWK);
    }
  } catch {
    return null;
  }
  return null;
}
