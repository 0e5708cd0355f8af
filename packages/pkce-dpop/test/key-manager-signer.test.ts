import { randomBytes } from 'node:crypto';
import { ManualClock, Metrics, SoftwareKeyManager } from '@tessera/platform';
import { openTestDatabase, type TestDatabase } from '@tessera/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDpopContext,
  createDpopProof,
  dpopSignerFromKeyManager,
  MemoryDpopReplayStore,
  verifyDpopProof,
  type DpopKeyManager,
} from '../src/index.js';

// The platform's real software key manager (PGlite in memory) behind the structural DpopKeyManager interface.
describe('dpopSignerFromKeyManager with the platform SoftwareKeyManager', () => {
  let t: TestDatabase;
  let keys: SoftwareKeyManager;
  const now = new Date();

  beforeAll(async () => {
    t = await openTestDatabase('pglite');
    keys = new SoftwareKeyManager({
      db: t.db,
      masterKey: randomBytes(32),
      metrics: new Metrics({ collectDefault: false }),
      clock: new ManualClock(now),
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(['ES256', 'ES384'] as const)('signs %s proofs that verify, with the key kid as thumbprint', async (alg) => {
    const alias = `dpop-${alg}`;
    const info = await keys.create(alias, alg);
    const structural: DpopKeyManager = keys;
    const context = await createDpopContext({
      method: 'KEY_ALIAS',
      identifier: alias,
      signer: dpopSignerFromKeyManager(structural, alias, alg),
    });
    expect(context.publicJwk).toEqual({
      kty: 'EC',
      crv: alg === 'ES256' ? 'P-256' : 'P-384',
      x: expect.any(String),
      y: expect.any(String),
    });
    expect(context.jwkThumbprint).toBe(info.kid);

    const { dpopProof, jwkThumbprint } = await createDpopProof({
      issuer: context.issuer,
      publicJwk: context.publicJwk,
      httpMethod: 'POST',
      httpUrl: 'https://as.example/token',
      now,
    });
    const verified = await verifyDpopProof({
      dpopProof,
      httpMethod: 'POST',
      httpUrl: 'https://as.example/token',
      expectedJwkThumbprint: info.kid,
      replayStore: new MemoryDpopReplayStore(),
      now,
    });
    expect(verified.jwkThumbprint).toBe(jwkThumbprint);
    expect(verified.header.alg).toBe(alg);
  });

  it('refuses an alias whose algorithm is not the signer algorithm', async () => {
    await keys.create('dpop-rsa', 'RS256');
    const signer = dpopSignerFromKeyManager(keys, 'dpop-rsa', 'ES256');
    await expect(signer.sign(new Uint8Array([1, 2, 3]))).rejects.toThrow(/signs with RS256, not ES256/);
  });

  it('fails instead of signing with a rotated key under a stale public key', async () => {
    await keys.create('dpop-rotating', 'ES256');
    const context = await createDpopContext({
      method: 'KEY_ALIAS',
      identifier: 'dpop-rotating',
      signer: dpopSignerFromKeyManager(keys, 'dpop-rotating'),
    });
    await keys.rotate('dpop-rotating');
    await expect(
      createDpopProof({
        issuer: context.issuer,
        publicJwk: context.publicJwk,
        httpMethod: 'GET',
        httpUrl: 'https://rs.example/',
      }),
    ).rejects.toThrow(/was rotated/);
    const fresh = await createDpopContext(context.issuer);
    expect(fresh.jwkThumbprint).not.toBe(context.jwkThumbprint);
    await expect(
      createDpopProof({
        issuer: fresh.issuer,
        publicJwk: fresh.publicJwk,
        httpMethod: 'GET',
        httpUrl: 'https://rs.example/',
      }),
    ).resolves.toMatchObject({ jwkThumbprint: fresh.jwkThumbprint });
  });
});
