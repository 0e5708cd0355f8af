import { ECDH } from 'node:crypto';
import type { JWK } from 'jose';
import { decodeJsonBase64Url, encodeBase64Url } from '../common/base64url.js';
import { toPublicJwk } from './generate-es256-key.js';
import { decodeBase58btc } from './decode-base58btc.js';

/**
 * Resolves the public key of a DID URL for the DID methods a test wallet meets: did:jwk (the whole key is in the
 * identifier) and did:key with P-256 or Ed25519 keys (multicodec 0x1200 and 0xed, compressed P-256 points).
 */
export function resolveDidPublicJwk(didUrl: string): JWK {
  const [did, fragment] = didUrl.split('#') as [string, string | undefined];
  if (did.startsWith('did:jwk:')) {
    if (fragment !== undefined && fragment !== '0') throw new Error('did:jwk has only the verification method #0');
    const jwk = decodeJsonBase64Url<JWK>(did.slice('did:jwk:'.length));
    if ('d' in jwk) throw new Error('did:jwk must not contain a private key');
    return toPublicJwk(jwk);
  }
  if (did.startsWith('did:key:z')) {
    const multibase = did.slice('did:key:'.length);
    if (fragment !== undefined && fragment !== multibase)
      throw new Error('did:key verification method must repeat the key');
    return decodeDidKey(decodeBase58btc(multibase.slice(1)));
  }
  throw new Error(`unsupported DID method in ${did.slice(0, 16)}`);
}

function decodeDidKey(bytes: Uint8Array): JWK {
  if (bytes[0] === 0x80 && bytes[1] === 0x24 && bytes.length === 35) {
    const uncompressed = ECDH.convertKey(
      Buffer.from(bytes.subarray(2)),
      'prime256v1',
      undefined,
      undefined,
      'uncompressed',
    ) as Buffer;
    return {
      kty: 'EC',
      crv: 'P-256',
      x: encodeBase64Url(uncompressed.subarray(1, 33)),
      y: encodeBase64Url(uncompressed.subarray(33, 65)),
    };
  }
  if (bytes[0] === 0xed && bytes[1] === 0x01 && bytes.length === 34) {
    return { kty: 'OKP', crv: 'Ed25519', x: encodeBase64Url(bytes.subarray(2)) };
  }
  throw new Error('unsupported did:key multicodec');
}
