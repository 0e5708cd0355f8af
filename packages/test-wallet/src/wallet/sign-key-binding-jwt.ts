import type { JWK } from 'jose';
import { encodeBase64Url } from '../common/base64url.js';
import { hashBytes } from '../crypto/hash-bytes.js';
import { signCompactJwt } from '../crypto/sign-compact-jwt.js';

/** `sd_hash`: base64url SHA-256 over the presented SD-JWT up to and including its last `~` (RFC 9901 §4.3.1). */
export function computeSdHash(sdJwtWithoutKeyBinding: string): string {
  return encodeBase64Url(hashBytes(sdJwtWithoutKeyBinding, 'sha-256'));
}

/**
 * The Key Binding JWT (RFC 9901 §4.3): header `typ: kb+jwt`, `alg`; payload `iat`, `aud`, `nonce`, `sd_hash`,
 * signed with the key in the credential's `cnf`. OpenID4VP 1.0 Appendix B.3.6: `aud` is the client_id and `nonce`
 * the request nonce.
 */
export function signKeyBindingJwt(input: {
  privateJwk: JWK;
  typ: string;
  iat: number;
  aud: string;
  nonce: string;
  sdHash: string;
}): Promise<string> {
  return signCompactJwt({
    header: { typ: input.typ, alg: 'ES256' },
    payload: { iat: input.iat, aud: input.aud, nonce: input.nonce, sd_hash: input.sdHash },
    privateJwk: input.privateJwk,
  });
}
