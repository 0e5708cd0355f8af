import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, signWebhook, verifyWebhook, WebhookVerificationError } from './signature.js';

// The example of the Standard Webhooks specification and its reference libraries' tests.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('Standard Webhooks signatures', () => {
  it('signs the published test vector to its published signature', () => {
    expect(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)['webhook-signature']).toBe(
      VECTOR.signature,
    );
  });

  it('verifies the published test vector at its timestamp', () => {
    const headers = {
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestamp),
      'webhook-signature': VECTOR.signature,
    };
    expect(verifyWebhook(VECTOR.secret, headers, VECTOR.body, { nowSeconds: VECTOR.timestamp + 10 })).toEqual({
      id: VECTOR.id,
      timestamp: VECTOR.timestamp,
    });
  });

  it('accepts any one matching signature of several (secret rotation)', () => {
    const headers = {
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestamp),
      'webhook-signature': `v1,AAAA v2,zzz ${VECTOR.signature}`,
    };
    expect(verifyWebhook(VECTOR.secret, headers, VECTOR.body, { nowSeconds: VECTOR.timestamp }).id).toBe(VECTOR.id);
  });

  const secret = generateWebhookSecret();
  const now = 1_800_000_000;
  const body = '{"type":"thing.created","data":{"n":1}}';
  const signed = signWebhook(secret, 'abc', now, body);

  it('makes whsec_ secrets of 32 random bytes', () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it.each([
    ['a changed body', signed, body.replace('1', '2')],
    ['a changed id', { ...signed, 'webhook-id': 'abd' }, body],
    ['a changed timestamp', { ...signed, 'webhook-timestamp': String(now + 1) }, body],
    ['a changed signature', { ...signed, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` }, body],
    ['an unknown version', { ...signed, 'webhook-signature': signed['webhook-signature'].replace('v1,', 'v2,') }, body],
    ['a missing signature', { 'webhook-id': 'abc', 'webhook-timestamp': String(now) }, body],
  ])('refuses %s', (_name, headers, payload) => {
    expect(() => verifyWebhook(secret, headers, payload, { nowSeconds: now })).toThrow(WebhookVerificationError);
  });

  it('refuses another secret', () => {
    expect(() => verifyWebhook(generateWebhookSecret(), signed, body, { nowSeconds: now })).toThrow(/no matching/);
  });

  it('refuses a timestamp outside the tolerance either way, and accepts one inside', () => {
    expect(() => verifyWebhook(secret, signed, body, { nowSeconds: now + 301 })).toThrow(/tolerance/);
    expect(() => verifyWebhook(secret, signed, body, { nowSeconds: now - 301 })).toThrow(/tolerance/);
    expect(() => verifyWebhook(secret, signed, body, { nowSeconds: now + 61, toleranceSeconds: 60 })).toThrow(
      /tolerance/,
    );
    expect(verifyWebhook(secret, signed, body, { nowSeconds: now + 300 }).id).toBe('abc');
  });

  it('reads headers case-insensitively, as a Node request gives them or as sent', () => {
    const upper = {
      'Webhook-Id': signed['webhook-id'],
      'Webhook-Timestamp': signed['webhook-timestamp'],
      'Webhook-Signature': signed['webhook-signature'],
    };
    expect(verifyWebhook(secret, upper, body, { nowSeconds: now }).id).toBe('abc');
  });
});
