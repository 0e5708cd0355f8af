import { encodeBase64url } from '../crypto/base64url.js';
import type { DpopKeySigner } from './dpop-types.js';

/** IEEE P1363 r||s length of each ECDSA algorithm (RFC 7518 §3.4). */
const SIGNATURE_BYTES: Record<DpopKeySigner['alg'], number> = { ES256: 64, ES384: 96 };

/**
 * JWS Compact Serialization (RFC 7515 §7.1) of a JSON header and payload, signed through a DpopKeySigner so that
 * the private key stays inside the signer.
 */
export async function signCompactJws(
  signer: DpopKeySigner,
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
): Promise<string> {
  const signingInput = `${encodeBase64url(JSON.stringify(header))}.${encodeBase64url(JSON.stringify(payload))}`;
  const signature = await signer.sign(new TextEncoder().encode(signingInput));
  if (signature.length !== SIGNATURE_BYTES[signer.alg]) {
    // A DER-encoded ECDSA signature is the usual cause: JWS needs the fixed-length r||s form (RFC 7518 §3.4).
    throw new TypeError(`the ${signer.alg} signer must return a ${SIGNATURE_BYTES[signer.alg]}-byte r||s signature`);
  }
  return `${signingInput}.${encodeBase64url(signature)}`;
}
