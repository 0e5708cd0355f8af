import { createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '../crypto/constant-time-equal.js';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com/, "Signature scheme"): the sender signs
 * `${webhook-id}.${webhook-timestamp}.${body}` with HMAC-SHA256 under the destination's secret and sends
 * `webhook-signature: v1,<base64 MAC>` (space-separated when several secrets are in rotation). The secret is
 * `whsec_` followed by the base64 of the key bytes.
 */
export const SECRET_PREFIX = 'whsec_';

/** A type alias, not an interface, so that it is assignable to a plain header record. */
export type WebhookHeaders = Readonly<{
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}>;

/** A fresh destination secret: 32 random bytes (the spec asks for 24 to 64). */
export const generateWebhookSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('the webhook secret is empty');
  return key;
}

const mac = (secret: string, id: string, timestamp: string, body: string) =>
  createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest();

/** The three headers of one signed request; `timestamp` in seconds since the epoch. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): WebhookHeaders {
  const ts = String(Math.floor(timestamp));
  return {
    'webhook-id': id,
    'webhook-timestamp': ts,
    'webhook-signature': `v1,${mac(secret, id, ts, body).toString('base64')}`,
  };
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyWebhookOptions {
  /** How far the timestamp may be from now, either way (default 300 s, as the spec's reference libraries). */
  toleranceSeconds?: number;
  /** "Now" in seconds (tests). */
  nowSeconds?: number;
}

const header = (headers: Readonly<Record<string, string | string[] | undefined>>, name: string) => {
  const direct = headers[name] ?? Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(direct) ? direct[0] : direct;
};

/**
 * Receiver side: checks the headers of a request against its raw body. Throws WebhookVerificationError when a
 * header is missing, the timestamp is outside the tolerance (replay), or no `v1` signature matches (compared in
 * constant time). Answers the webhook id, which receivers use to drop duplicates (delivery is at least once).
 */
export function verifyWebhook(
  secret: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: string,
  options: VerifyWebhookOptions = {},
): { id: string; timestamp: number } {
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !ts || !signatures) throw new WebhookVerificationError('missing webhook headers');
  if (!/^\d{1,12}$/.test(ts)) throw new WebhookVerificationError('invalid webhook-timestamp');
  const timestamp = Number(ts);
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - timestamp) > tolerance) throw new WebhookVerificationError('the timestamp is out of tolerance');
  const expected = mac(secret, id, ts, body);
  for (const candidate of signatures.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || value === undefined) continue;
    const given = Buffer.from(value, 'base64');
    if (constantTimeEqual(given, expected)) return { id, timestamp };
  }
  throw new WebhookVerificationError('no matching signature');
}
