/**
 * Security Event Token push delivery (RFC 8935) as the outbox speaks it to destinations of protocol `set-push`:
 * a 2xx delivers (202 per §2.2), a 400 whose JSON body names an `err` code (§2.3) is a refusal for good, anything
 * else is retried like a webhook.
 */

/** How much of a 400 answer is read for its `err` code; the rest is dropped, and nothing of it is stored. */
export const SET_ERROR_BODY_BYTES = 4096;

/** RFC 8935 §2.4 / the IANA "Security Event Token Error Codes" registry. */
export const SET_ERROR_CODES: readonly string[] = [
  'invalid_request',
  'invalid_key',
  'invalid_issuer',
  'invalid_audience',
  'authentication_failed',
  'access_denied',
];

/**
 * The `err` of an RFC 8935 §2.3 error body, as a registered code, or `other` for an unregistered one (a receiver's
 * own text is never stored); undefined when the body is not such an error (the answer is then retried).
 */
export function setErrorCode(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const err = (parsed as { err?: unknown }).err;
  if (typeof err !== 'string' || err.length === 0) return undefined;
  return SET_ERROR_CODES.includes(err) ? err : 'other';
}
