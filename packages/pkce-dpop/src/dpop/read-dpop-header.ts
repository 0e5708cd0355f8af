import { invalidProof } from './dpop-error.js';

/** A compact JWS: three base64url parts (RFC 7515 §7.1). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Proofs are a few hundred bytes; a bound keeps a hostile header from costing parse and hash time. */
export const MAX_DPOP_PROOF_LENGTH = 8192;

/**
 * The single DPoP header value of a request (RFC 9449 §4.3 points 1 and 2). Frameworks hand repeated headers over
 * as an array, or joined with ", " (Node's http module, fetch's Headers): both are refused, and a compact JWT
 * never contains a comma or whitespace.
 */
export function readDpopHeader(value: string | readonly string[] | null | undefined): string {
  if (value === null || value === undefined) throw invalidProof('missing_proof', 'DPoP proof is missing');
  if (typeof value !== 'string') {
    if (value.length === 0) throw invalidProof('missing_proof', 'DPoP proof is missing');
    if (value.length > 1) throw invalidProof('multiple_proofs', 'more than one DPoP header');
    return readDpopHeader(value[0]);
  }
  if (value === '') throw invalidProof('missing_proof', 'DPoP proof is missing');
  if (value.includes(',')) throw invalidProof('multiple_proofs', 'more than one DPoP header');
  if (value.length > MAX_DPOP_PROOF_LENGTH || !COMPACT_JWS.test(value)) {
    throw invalidProof('malformed_proof', 'DPoP proof is not a compact JWT');
  }
  return value;
}
