import { sha256Base64url } from '../crypto/sha256.js';
import type { PkceMethod } from './pkce-types.js';

/** S256: BASE64URL(SHA256(ASCII(code_verifier))); plain: the verifier itself (RFC 7636 §4.2). */
export function computeCodeChallenge(codeVerifier: string, method: PkceMethod): string {
  return method === 'S256' ? sha256Base64url(codeVerifier) : codeVerifier;
}
