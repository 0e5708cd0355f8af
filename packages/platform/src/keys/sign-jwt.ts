import type { KeyManager } from './key-manager.js';
import { base64urlBytes, base64urlJson, signingInputBytes } from './jws-encoding.js';

/**
 * Builds a compact JWS (RFC 7515 §7.1) whose signature comes from the key manager, so that no private key is
 * ever handed to a JWT library. The header gets `alg` and `kid` of the active key version.
 */
export async function signJwt(
  keys: KeyManager,
  alias: string,
  payload: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  const jwk = await keys.publicJwk(alias);
  const protectedHeader = { ...header, alg: jwk.alg, kid: jwk.kid };
  const signingInput = `${base64urlJson(protectedHeader)}.${base64urlJson(payload)}`;
  const signature = await keys.sign(alias, signingInputBytes(signingInput));
  if (signature.kid !== jwk.kid) {
    // The key rotated between reading the header and signing: sign again under the new header.
    return signJwt(keys, alias, payload, header);
  }
  return `${signingInput}.${base64urlBytes(signature.signature)}`;
}
