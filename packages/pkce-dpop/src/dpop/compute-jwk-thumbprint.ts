import { calculateJwkThumbprint, type JWK } from 'jose';

/** JWK SHA-256 thumbprint (RFC 7638), the `jkt` of a DPoP-bound token's `cnf` (RFC 9449 §6.1). */
export function computeJwkThumbprint(jwk: JWK): Promise<string> {
  return calculateJwkThumbprint(jwk, 'sha256');
}
