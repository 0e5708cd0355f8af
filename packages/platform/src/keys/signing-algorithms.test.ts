import { generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  SIGNING_ALGORITHMS,
  generateSigningKeyPair,
  signFor,
  signingParameters,
  signsOnThreadPool,
} from './signing-algorithms.js';

const data = new TextEncoder().encode('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0');

describe('signFor', () => {
  it.each(SIGNING_ALGORITHMS)('%s: a signature that node:crypto verifies with the public key', async (algorithm) => {
    const { publicKey, privateKey } = await generateSigningKeyPair(algorithm);
    const parameters = signingParameters(algorithm, privateKey);
    const signature = await signFor(algorithm, parameters, data);
    const key =
      typeof parameters.signingKey === 'object' && 'key' in parameters.signingKey
        ? { ...parameters.signingKey, key: publicKey }
        : publicKey;
    expect(verify(parameters.digest, data, key as never, signature)).toBe(true);
    // JWS ECDSA signatures are R || S (RFC 7518 §3.4), not DER.
    if (algorithm === 'ES256') expect(signature).toHaveLength(64);
    if (algorithm === 'ES384') expect(signature).toHaveLength(96);
  });

  it('signs RSA on the thread pool and ECDSA/EdDSA on the event loop', () => {
    expect(SIGNING_ALGORITHMS.filter(signsOnThreadPool)).toEqual(['RS256', 'PS256']);
  });

  it('an ES256 signature is complete when the call returns (no thread-pool hand-off)', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    let settled = false;
    const pending = signFor('ES256', signingParameters('ES256', privateKey), data).then((s) => {
      settled = true;
      return s;
    });
    // One microtask turn: a promise that was already resolved settles here; a pool job would still be running.
    await Promise.resolve();
    expect(settled).toBe(true);
    expect(await pending).toHaveLength(64);
  });

  it('a signing error on the loop rejects the promise rather than throwing', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    // Ed25519 takes no digest (RFC 8032): node:crypto refuses one.
    let call: Promise<Uint8Array> | undefined;
    expect(() => (call = signFor('EdDSA', { digest: 'sha256', signingKey: { key: privateKey } }, data))).not.toThrow();
    await expect(call).rejects.toThrow(/digest/);
  });
});
