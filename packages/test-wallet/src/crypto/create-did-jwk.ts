import type { JWK } from 'jose';
import { encodeJsonBase64Url } from '../common/base64url.js';
import { toPublicJwk } from './generate-es256-key.js';

/** did:jwk (did:jwk method specification): the base64url JSON of the public JWK. */
export function createDidJwk(publicJwk: JWK): string {
  return `did:jwk:${encodeJsonBase64Url(toPublicJwk(publicJwk))}`;
}

/** did:jwk has exactly one verification method, `#0`. */
export function didJwkKeyId(did: string): string {
  return `${did}#0`;
}
