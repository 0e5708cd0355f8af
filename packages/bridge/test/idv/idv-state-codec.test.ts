import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { IDV_STATE_ENCRYPTION_ALIAS, IdvStateCodec } from '../../src/idv/crypto/idv-state.js';
import { startTestBed, type BridgeTestBed } from '../support/bridge-app.js';

/**
 * The IDV state codec (000 §2.4 "signed, opaque, encodes both session ids"): a JWS (HS256, key manager) sealed with
 * the key manager's envelope encryption. Each layer is checked on its own: a well-encrypted state whose MAC does not
 * hold names nothing, and so does a correctly signed state sealed under another key or purpose.
 */
describe.each(DATABASE_KINDS)('IDV state codec (%s)', (kind) => {
  let bed: BridgeTestBed;
  let codec: IdvStateCodec;
  const claims = {
    reconciliationId: '0b8f4c2e-6c1d-4e0a-9d53-5b1f0a7c9e21',
    sessionId: '7d2a9b14-3e5f-4c6a-8b1d-2f0e9a8c7b65',
    stateId: 'c3RhdGUtaWQtb2YtdGVzdA',
    expiresAt: new Date('2030-01-01T00:05:00Z'),
  };
  const encoder = new TextEncoder();
  const PURPOSE = encoder.encode('tessera/bridge/idv-state/v1');

  beforeAll(async () => {
    bed = await startTestBed(kind);
    codec = new IdvStateCodec(bed.t.platform.keys);
  });
  afterAll(async () => bed?.close());

  it('round-trips both ids, the state id and the expiry; two states of the same claims differ', async () => {
    const one = await codec.encode(claims);
    const two = await codec.encode(claims);
    expect(one).not.toBe(two);
    expect(one).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(await codec.decode(one)).toEqual(claims);
    expect(await codec.decode(two)).toEqual(claims);
    for (const id of [claims.reconciliationId, claims.sessionId, claims.stateId]) expect(one).not.toContain(id);
  });

  it('refuses a state whose signature does not hold although it decrypts', async () => {
    const jws = (await bed.t.platform.keys.decrypt(await codec.encode(claims), PURPOSE)).plaintext;
    const [header, payload] = Buffer.from(jws).toString('utf8').split('.');
    const payloadOf = (patch: Record<string, unknown>) =>
      Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')), ...patch }),
      ).toString('base64url');
    const forged = [
      `${header}.${payloadOf({ sid: claims.reconciliationId })}.${'A'.repeat(43)}`,
      `${header}.${payload}.${'A'.repeat(43)}`,
      `${header}.${payload}.`,
    ];
    for (const text of forged) {
      const sealed = await bed.t.platform.keys.encrypt(IDV_STATE_ENCRYPTION_ALIAS, encoder.encode(text), PURPOSE);
      expect(await codec.decode(sealed.ciphertext)).toBeNull();
    }
  });

  it('refuses a genuine JWS sealed under another purpose or another key, and garbage', async () => {
    const jws = (await bed.t.platform.keys.decrypt(await codec.encode(claims), PURPOSE)).plaintext;
    const otherPurpose = await bed.t.platform.keys.encrypt(IDV_STATE_ENCRYPTION_ALIAS, jws, encoder.encode('other'));
    expect(await codec.decode(otherPurpose.ciphertext)).toBeNull();
    await bed.t.platform.keys.ensureSymmetric('bridge-session-secrets', 'A256GCM');
    const otherKey = await bed.t.platform.keys.encrypt('bridge-session-secrets', jws, PURPOSE);
    expect(await codec.decode(otherKey.ciphertext)).toBeNull();
    for (const garbage of ['', '....', 'e1.x.y.z.w.v', 'a'.repeat(3000), 'not base64!'])
      expect(await codec.decode(garbage)).toBeNull();
  });
});
