import { decodeBase64url } from '../crypto/base64url.js';
import { invalidProof } from './dpop-error.js';

function decodeJsonObject(part: string, what: string): Record<string, unknown> {
  const bytes = decodeBase64url(part);
  let value: unknown;
  try {
    value = bytes === null ? undefined : JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidProof('malformed_proof', `DPoP proof ${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** Header and claims of a compact proof, before any check (RFC 7515 §5.2 steps 1–3). */
export function decodeDpopProof(proof: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header, payload] = proof.split('.');
  return { header: decodeJsonObject(header ?? '', 'header'), payload: decodeJsonObject(payload ?? '', 'payload') };
}
