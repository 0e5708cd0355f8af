import { invalidProof } from './dpop-error.js';

/** Strict UTF-8, as jose decodes a JOSE header or claims set: an invalid byte sequence is an error. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * One base64url part of a compact JWS as a JSON object, or null. readDpopHeader has already checked the
 * alphabet; a length of 4n+1 cannot be base64url (the check atob and jose make), and Buffer's native decoder does
 * the rest: the same result as jose's decodeProtectedHeader/decodeJwt, without their atob and byte-copy loop.
 */
function decodePart(part: string): Record<string, unknown> | null {
  if (part.length % 4 === 1) return null;
  try {
    const value: unknown = JSON.parse(strictUtf8.decode(Buffer.from(part, 'base64url')));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Header and claims of a compact proof, before any check (RFC 7515 §5.2 steps 1–3): strict base64url and UTF-8,
 * each a JSON object. readDpopHeader has already checked the three-part shape.
 */
export function decodeDpopProof(proof: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const first = proof.indexOf('.');
  const second = proof.indexOf('.', first + 1);
  const header = decodePart(proof.slice(0, first));
  if (header === null) throw invalidProof('malformed_proof', 'DPoP proof header is not a JSON object');
  const payload = decodePart(proof.slice(first + 1, second));
  if (payload === null) throw invalidProof('malformed_proof', 'DPoP proof payload is not a JSON object');
  return { header, payload };
}
