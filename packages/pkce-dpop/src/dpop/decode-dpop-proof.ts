import { decodeJwt, decodeProtectedHeader } from 'jose';
import { invalidProof } from './dpop-error.js';

/**
 * Header and claims of a compact proof, before any check (RFC 7515 §5.2 steps 1–3), decoded by jose (strict
 * base64url and UTF-8, each a JSON object). readDpopHeader has already checked the three-part shape.
 */
export function decodeDpopProof(proof: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(proof) as Record<string, unknown>;
  } catch {
    throw invalidProof('malformed_proof', 'DPoP proof header is not a JSON object');
  }
  try {
    return { header, payload: decodeJwt(proof) as Record<string, unknown> };
  } catch {
    throw invalidProof('malformed_proof', 'DPoP proof payload is not a JSON object');
  }
}
