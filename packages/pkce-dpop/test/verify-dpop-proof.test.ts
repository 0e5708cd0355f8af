import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  computeAccessTokenHash,
  createDpopProof,
  DpopError,
  DpopNonceManager,
  generateDpopKeyPair,
  MemoryDpopReplayStore,
  verifyDpopProof,
  type DpopIssuer,
  type DpopReplayStore,
  type VerifyDpopProofOptions,
} from '../src/index.js';
import {
  RFC_ACCESS_TOKEN,
  RFC_JKT,
  RFC_JWK,
  RFC_RESOURCE_PROOF,
  RFC_TOKEN_REQUEST_PROOF,
  signProof,
  testKey,
  unsignedProof,
  type TestKey,
} from './support/proofs.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const NOW_S = NOW.getTime() / 1000;
const URL_ = 'https://as.example.com/token';

function at(seconds: number): Date {
  return new Date(NOW.getTime() + seconds * 1000);
}

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { jti: randomBytes(16).toString('base64url'), htm: 'POST', htu: URL_, iat: NOW_S, ...overrides };
}

async function proofWith(
  key: TestKey,
  payload: Record<string, unknown> = claims(),
  header: Record<string, unknown> = {},
): Promise<string> {
  return signProof(key.privateKey, { typ: 'dpop+jwt', alg: key.alg, jwk: key.publicJwk, ...header }, payload);
}

function options(dpopProof: VerifyDpopProofOptions['dpopProof'], extra: Partial<VerifyDpopProofOptions> = {}) {
  return {
    dpopProof,
    httpMethod: 'POST',
    httpUrl: URL_,
    replayStore: new MemoryDpopReplayStore({ now: () => extra.now ?? NOW }),
    now: NOW,
    ...extra,
  } satisfies VerifyDpopProofOptions;
}

async function failure(promise: Promise<unknown>): Promise<DpopError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DpopError);
    return error as DpopError;
  }
  throw new Error('expected a DpopError');
}

describe('verifyDpopProof: accepted proofs', () => {
  it('accepts a proof made by createDpopProof and returns header, claims and thumbprint', async () => {
    const signer = await generateDpopKeyPair();
    const issuer: DpopIssuer = { method: 'KEY_ALIAS', identifier: 'k', signer };
    const made = await createDpopProof({ issuer, httpMethod: 'POST', httpUrl: URL_, now: NOW });
    const verified = await verifyDpopProof(options(made.dpopProof));
    expect(verified.jwkThumbprint).toBe(made.jwkThumbprint);
    expect(verified.header).toEqual({ typ: 'dpop+jwt', alg: 'ES256', jwk: await signer.publicJwk() });
    expect(verified.payload).toEqual({ jti: expect.any(String), htm: 'POST', htu: URL_, iat: NOW_S });
  });

  it('accepts the RFC 9449 §4.1 example proof at its own time, with the §6.1 thumbprint', async () => {
    const verified = await verifyDpopProof(
      options(RFC_TOKEN_REQUEST_PROOF, { httpUrl: 'https://server.example.com/token', now: new Date(1562262616_000) }),
    );
    expect(verified.jwkThumbprint).toBe(RFC_JKT);
    expect(verified.header.jwk).toEqual(RFC_JWK);
    expect(verified.payload).toEqual({
      jti: '-BwC3ESc6acc2lTc',
      htm: 'POST',
      htu: 'https://server.example.com/token',
      iat: 1562262616,
    });
  });

  it('accepts the RFC 9449 §7.1 example with its access token and cnf.jkt', async () => {
    const verified = await verifyDpopProof(
      options(RFC_RESOURCE_PROOF, {
        httpMethod: 'GET',
        httpUrl: 'https://resource.example.org/protectedresource',
        now: new Date(1562262618_000),
        accessToken: RFC_ACCESS_TOKEN,
        expectedJwkThumbprint: RFC_JKT,
      }),
    );
    expect(verified.payload.ath).toBe('fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo');
  });

  it('accepts ES384 by default and other asymmetric algorithms only when allowed', async () => {
    const es384 = await testKey('ES384');
    await expect(verifyDpopProof(options(await proofWith(es384)))).resolves.toMatchObject({ header: { alg: 'ES384' } });
    const ps256 = await testKey('PS256');
    const proof = await proofWith(ps256);
    expect((await failure(verifyDpopProof(options(proof)))).reason).toBe('unsupported_alg');
    await expect(verifyDpopProof(options(proof, { allowedSigningAlgs: ['PS256'] }))).resolves.toBeDefined();
  });

  it('accepts typ application/dpop+jwt (RFC 7515 §4.1.9)', async () => {
    const key = await testKey();
    await expect(
      verifyDpopProof(options(await proofWith(key, claims(), { typ: 'application/dpop+jwt' }))),
    ).resolves.toBeDefined();
  });

  it('ignores the query and fragment of the request URI', async () => {
    const key = await testKey();
    await expect(
      verifyDpopProof(options(await proofWith(key), { httpUrl: `${URL_}?grant_type=x#top` })),
    ).resolves.toBeDefined();
  });

  it.each([
    ['scheme and host case', 'HTTPS://AS.Example.COM/token'],
    ['the default https port', 'https://as.example.com:443/token'],
    ['a percent-encoded unreserved character', 'https://as.example.com/%74oken'],
    ['a dot segment', 'https://as.example.com/a/../token'],
  ])('normalises %s in htu (RFC 3986 §6.2.2–6.2.3)', async (_label, htu) => {
    const key = await testKey();
    await expect(verifyDpopProof(options(await proofWith(key, claims({ htu }))))).resolves.toBeDefined();
  });

  it('normalises the default http port and percent-encoding case', async () => {
    const key = await testKey();
    const proof = await proofWith(key, claims({ htu: 'http://127.0.0.1:80/a%2fb' }));
    await expect(verifyDpopProof(options(proof, { httpUrl: 'http://127.0.0.1/a%2Fb' }))).resolves.toBeDefined();
  });
});

describe('verifyDpopProof: RFC 9449 §4.3 checks', () => {
  it('(1) rejects a missing proof', async () => {
    for (const value of [undefined, null, '', []]) {
      expect(await failure(verifyDpopProof(options(value)))).toMatchObject({
        code: 'invalid_dpop_proof',
        reason: 'missing_proof',
      });
    }
  });

  it('(1) rejects two DPoP headers, as an array or joined by the framework', async () => {
    const key = await testKey();
    const a = await proofWith(key);
    const b = await proofWith(key);
    expect((await failure(verifyDpopProof(options([a, b])))).reason).toBe('multiple_proofs');
    expect((await failure(verifyDpopProof(options(`${a}, ${b}`)))).reason).toBe('multiple_proofs');
    await expect(verifyDpopProof(options([a]))).resolves.toBeDefined();
  });

  it('(2) rejects what is not a single well-formed JWT', async () => {
    const key = await testKey();
    const good = await proofWith(key);
    const [h, p, s] = good.split('.');
    const notJson = Buffer.from('not json').toString('base64url');
    const array = Buffer.from('[1]').toString('base64url');
    // Not UTF-8 (a lone continuation byte inside a JSON string), and a base64url length of 4n+1.
    const notUtf8 = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0x80]), Buffer.from('"}')]).toString(
      'base64url',
    );
    const badLength = `${h}${'A'.repeat((5 - (h!.length % 4)) % 4)}`;
    for (const value of [
      `${notUtf8}.${p}.${s}`,
      `${h}.${notUtf8}.${s}`,
      `${badLength}.${p}.${s}`,
      'abc',
      `${h}.${p}`,
      `${h}.${p}.${s}.${s}`,
      `${h}.${p}.`,
      `${h} .${p}.${s}`,
      `${notJson}.${p}.${s}`,
      `${h}.${array}.${s}`,
      `${h}.${p}.${s}${'A'.repeat(8192)}`,
    ]) {
      expect((await failure(verifyDpopProof(options(value)))).reason).toBe('malformed_proof');
    }
  });

  it('(3) rejects a proof missing jti, htm, htu or iat, or with an iat that is not a number', async () => {
    const key = await testKey();
    for (const name of ['jti', 'htm', 'htu', 'iat']) {
      const payload = claims();
      delete payload[name];
      expect((await failure(verifyDpopProof(options(await proofWith(key, payload))))).reason).toBe('missing_claim');
    }
    const stringIat = await proofWith(key, claims({ iat: String(NOW_S) }));
    expect((await failure(verifyDpopProof(options(stringIat)))).reason).toBe('missing_claim');
    const emptyJti = await proofWith(key, claims({ jti: '' }));
    expect((await failure(verifyDpopProof(options(emptyJti)))).reason).toBe('missing_claim');
  });

  it('(4) rejects a missing or different typ', async () => {
    const key = await testKey();
    const noTyp = await signProof(key.privateKey, { alg: 'ES256', jwk: key.publicJwk }, claims());
    expect((await failure(verifyDpopProof(options(noTyp)))).reason).toBe('invalid_typ');
    for (const typ of ['JWT', 'at+jwt', 'dpop']) {
      expect(await failure(verifyDpopProof(options(await proofWith(key, claims(), { typ }))))).toMatchObject({
        code: 'invalid_dpop_proof',
        reason: 'invalid_typ',
      });
    }
  });

  it('(5) rejects alg none, with or without a signature part', async () => {
    const key = await testKey();
    const header = { typ: 'dpop+jwt', alg: 'none', jwk: key.publicJwk };
    expect((await failure(verifyDpopProof(options(unsignedProof(header, claims()))))).reason).toBe('unsupported_alg');
    const empty = unsignedProof(header, claims()).replace(/\.[^.]*$/, '.');
    expect((await failure(verifyDpopProof(options(empty)))).reason).toBe('malformed_proof');
  });

  it('(5) rejects HS256, even when the MAC is valid and the header carries a key', async () => {
    const secret = randomBytes(32);
    const key = await testKey();
    const hs = await signProof(secret, { typ: 'dpop+jwt', alg: 'HS256', jwk: key.publicJwk }, claims());
    expect((await failure(verifyDpopProof(options(hs)))).reason).toBe('unsupported_alg');
    const withOct = await signProof(
      secret,
      { typ: 'dpop+jwt', alg: 'HS256', jwk: { kty: 'oct', k: secret.toString('base64url') } },
      claims(),
    );
    expect((await failure(verifyDpopProof(options(withOct)))).reason).toBe('unsupported_alg');
  });

  it('(5) refuses to be configured with a symmetric or unknown algorithm', async () => {
    const key = await testKey();
    const proof = await proofWith(key);
    await expect(verifyDpopProof(options(proof, { allowedSigningAlgs: ['HS256' as never] }))).rejects.toThrow(
      TypeError,
    );
    await expect(verifyDpopProof(options(proof, { allowedSigningAlgs: [] }))).rejects.toThrow(TypeError);
  });

  it('(6) rejects a signature by another key than the embedded jwk', async () => {
    const key = await testKey();
    const other = await testKey();
    const proof = await signProof(other.privateKey, { typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk }, claims());
    expect((await failure(verifyDpopProof(options(proof)))).reason).toBe('invalid_signature');
  });

  it('(6) rejects a proof whose claims were changed after signing', async () => {
    const key = await testKey();
    const [h, , s] = (await proofWith(key, claims({ htm: 'GET' }))).split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}.${s}`;
    expect((await failure(verifyDpopProof(options(forged)))).reason).toBe('invalid_signature');
  });

  it('(6) rejects a jwk that does not fit the alg, or is missing', async () => {
    const p384 = await testKey('ES384');
    const proof = await signProof(
      p384.privateKey,
      { typ: 'dpop+jwt', alg: 'ES384', jwk: (await testKey()).publicJwk },
      claims(),
    );
    expect((await failure(verifyDpopProof(options(proof)))).reason).toBe('invalid_jwk');
    const key = await testKey();
    const noJwk = await signProof(key.privateKey, { typ: 'dpop+jwt', alg: 'ES256' }, claims());
    expect((await failure(verifyDpopProof(options(noJwk)))).reason).toBe('invalid_jwk');
    const offCurve = await proofWith(key, claims(), { jwk: { ...key.publicJwk, y: key.publicJwk.x } });
    expect((await failure(verifyDpopProof(options(offCurve)))).reason).toBe('invalid_jwk');
  });

  it('(7) rejects a jwk that contains the private key, even with a valid signature', async () => {
    const key = await testKey();
    const proof = await proofWith(key, claims(), { jwk: key.privateJwk });
    expect(await failure(verifyDpopProof(options(proof)))).toMatchObject({
      code: 'invalid_dpop_proof',
      reason: 'private_jwk',
    });
  });

  it('(7) rejects RSA private members too', async () => {
    const rsa = await testKey('PS256');
    const proof = await proofWith(rsa, claims(), { jwk: rsa.privateJwk });
    expect((await failure(verifyDpopProof(options(proof, { allowedSigningAlgs: ['PS256'] })))).reason).toBe(
      'private_jwk',
    );
  });

  it('(8) rejects an htm that is not the request method', async () => {
    const key = await testKey();
    expect(await failure(verifyDpopProof(options(await proofWith(key, claims({ htm: 'GET' })))))).toMatchObject({
      code: 'invalid_dpop_proof',
      reason: 'htm_mismatch',
    });
    expect(await failure(verifyDpopProof(options(await proofWith(key, claims({ htm: 'post' })))))).toMatchObject({
      reason: 'htm_mismatch',
    });
  });

  it.each([
    ['another path', 'https://as.example.com/authorize'],
    ['another host', 'https://other.example.com/token'],
    ['another scheme', 'http://as.example.com/token'],
    ['another port', 'https://as.example.com:8443/token'],
    ['a query', `${URL_}?grant_type=authorization_code`],
    ['an empty query', `${URL_}?`],
    ['a fragment', `${URL_}#top`],
    ['a relative reference', '/token'],
    ['credentials', 'https://user@as.example.com/token'],
    ['a trailing slash', `${URL_}/`],
  ])('(9) rejects an htu with %s', async (_label, htu) => {
    const key = await testKey();
    expect(await failure(verifyDpopProof(options(await proofWith(key, claims({ htu })))))).toMatchObject({
      code: 'invalid_dpop_proof',
      reason: 'htu_mismatch',
    });
  });

  it('(10) answers use_dpop_nonce to a proof without the required nonce, or with a wrong one', async () => {
    const key = await testKey();
    expect(await failure(verifyDpopProof(options(await proofWith(key), { expectedNonce: 'n-1' })))).toMatchObject({
      code: 'use_dpop_nonce',
      reason: 'missing_nonce',
    });
    const wrong = await proofWith(key, claims({ nonce: 'n-0' }));
    expect(await failure(verifyDpopProof(options(wrong, { expectedNonce: 'n-1' })))).toMatchObject({
      code: 'use_dpop_nonce',
      reason: 'invalid_nonce',
    });
    const right = await proofWith(key, claims({ nonce: 'n-1' }));
    await expect(verifyDpopProof(options(right, { expectedNonce: 'n-1' }))).resolves.toMatchObject({
      payload: { nonce: 'n-1' },
    });
  });

  it('(10) checks nonces through a DpopNonceManager: current and previous slot accepted, older refused', async () => {
    let now = NOW;
    const nonces = new DpopNonceManager({ secret: randomBytes(32), slotSeconds: 60, now: () => now });
    const issued = await nonces.issueNonce();
    const key = await testKey();
    const check = async (at: Date) =>
      verifyDpopProof(
        options(await proofWith(key, claims({ nonce: issued, iat: at.getTime() / 1000 })), {
          expectedNonce: nonces,
          now: at,
        }),
      );
    await expect(check(NOW)).resolves.toBeDefined();
    now = at(60);
    await expect(check(now)).resolves.toBeDefined();
    now = at(120);
    expect(await failure(check(now))).toMatchObject({ code: 'use_dpop_nonce', reason: 'invalid_nonce' });
  });

  it('(11) accepts iat exactly at the window edges and rejects one second beyond (±60 s + 5 s skew)', async () => {
    const key = await testKey();
    for (const offset of [-65, 65]) {
      await expect(
        verifyDpopProof(options(await proofWith(key, claims({ iat: NOW_S + offset })))),
      ).resolves.toBeDefined();
    }
    for (const offset of [-66, 66]) {
      expect(
        await failure(verifyDpopProof(options(await proofWith(key, claims({ iat: NOW_S + offset }))))),
      ).toMatchObject({
        code: 'invalid_dpop_proof',
        reason: 'iat_out_of_window',
      });
    }
  });

  it('(11) honours a configured window and skew', async () => {
    const key = await testKey();
    const window = { iatWindowSeconds: 10, clockSkewSeconds: 0 };
    await expect(
      verifyDpopProof(options(await proofWith(key, claims({ iat: NOW_S - 10 })), window)),
    ).resolves.toBeDefined();
    expect(
      (await failure(verifyDpopProof(options(await proofWith(key, claims({ iat: NOW_S - 11 })), window)))).reason,
    ).toBe('iat_out_of_window');
    expect(
      (await failure(verifyDpopProof(options(await proofWith(key, claims({ iat: NOW_S + 11 })), window)))).reason,
    ).toBe('iat_out_of_window');
  });

  it('(12) requires ath equal to the hash of the presented access token', async () => {
    const key = await testKey();
    const token = 'access-token-value';
    const noAth = await proofWith(key);
    expect(await failure(verifyDpopProof(options(noAth, { accessToken: token })))).toMatchObject({
      code: 'invalid_dpop_proof',
      reason: 'missing_ath',
    });
    const otherAth = await proofWith(key, claims({ ath: computeAccessTokenHash('another-token') }));
    const error = await failure(verifyDpopProof(options(otherAth, { accessToken: token })));
    expect(error).toMatchObject({ code: 'invalid_dpop_proof', reason: 'ath_mismatch' });
    expect(error.message).not.toContain(token);
    const good = await proofWith(key, claims({ ath: computeAccessTokenHash(token) }));
    await expect(verifyDpopProof(options(good, { accessToken: token }))).resolves.toBeDefined();
  });

  it('(12) requires the proof key to be the one the token is bound to (cnf.jkt)', async () => {
    const key = await testKey();
    const other = await testKey();
    const { jwkThumbprint } = await verifyDpopProof(options(await proofWith(other)));
    expect(
      await failure(verifyDpopProof(options(await proofWith(key), { expectedJwkThumbprint: jwkThumbprint }))),
    ).toMatchObject({
      code: 'invalid_token',
      reason: 'jkt_mismatch',
    });
    const own = await verifyDpopProof(options(await proofWith(key)));
    await expect(
      verifyDpopProof(options(await proofWith(key), { expectedJwkThumbprint: own.jwkThumbprint })),
    ).resolves.toBeDefined();
  });

  it('never puts the proof or the access token in a message', async () => {
    const key = await testKey();
    const proof = await proofWith(key, claims({ htm: 'GET' }));
    const error = await failure(verifyDpopProof(options(proof, { accessToken: 'secret-token' })));
    expect(error.message).not.toContain(proof.split('.')[1]);
    expect(error.message).not.toContain('secret-token');
  });
});

describe('verifyDpopProof: jti replay (RFC 9449 §11.1)', () => {
  it('accepts a jti once and rejects the same proof again', async () => {
    const key = await testKey();
    const proof = await proofWith(key);
    const replayStore = new MemoryDpopReplayStore({ now: () => NOW });
    await expect(verifyDpopProof(options(proof, { replayStore }))).resolves.toBeDefined();
    expect(await failure(verifyDpopProof(options(proof, { replayStore })))).toMatchObject({
      code: 'invalid_dpop_proof',
      reason: 'replayed_jti',
    });
  });

  it('rejects a replay at the last instant the proof is acceptable (window edge)', async () => {
    const key = await testKey();
    const proof = await proofWith(key);
    let now = NOW;
    const replayStore = new MemoryDpopReplayStore({ now: () => now });
    await verifyDpopProof(options(proof, { replayStore }));
    now = at(65);
    expect((await failure(verifyDpopProof(options(proof, { replayStore, now })))).reason).toBe('replayed_jti');
  });

  it('after the window: the old proof fails on iat, and the store has forgotten the jti (documented)', async () => {
    const key = await testKey();
    const jti = 'reused-jti';
    const first = await proofWith(key, claims({ jti }));
    let now = NOW;
    const replayStore = new MemoryDpopReplayStore({ now: () => now });
    await verifyDpopProof(options(first, { replayStore }));

    now = at(66);
    expect((await failure(verifyDpopProof(options(first, { replayStore, now })))).reason).toBe('iat_out_of_window');
    // A new proof that happens to reuse the jti, created after the first one's window: accepted once.
    const second = await proofWith(key, claims({ jti, iat: NOW_S + 66 }));
    await expect(verifyDpopProof(options(second, { replayStore, now }))).resolves.toBeDefined();
    expect((await failure(verifyDpopProof(options(second, { replayStore, now })))).reason).toBe('replayed_jti');
  });

  it('does not use up a jti when the proof fails another check', async () => {
    const key = await testKey();
    const proof = await proofWith(key, claims({ nonce: 'n-2' }));
    const replayStore = new MemoryDpopReplayStore({ now: () => NOW });
    expect((await failure(verifyDpopProof(options(proof, { replayStore, expectedNonce: 'n-1' })))).code).toBe(
      'use_dpop_nonce',
    );
    await expect(verifyDpopProof(options(proof, { replayStore, expectedNonce: 'n-2' }))).resolves.toBeDefined();
  });

  it('does not use up a jti when the signature fails: the write sent beside the check is forgotten', async () => {
    const key = await testKey();
    const other = await testKey();
    const payload = claims();
    const calls: string[] = [];
    const memory = new MemoryDpopReplayStore({ now: () => NOW });
    const replayStore: DpopReplayStore = {
      rememberOnce: (k, until) => (calls.push('remember'), memory.rememberOnce(k, until)),
      forget: (k) => (calls.push('forget'), memory.forget(k)),
    };
    const forged = await signProof(other.privateKey, { typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk }, payload);
    expect((await failure(verifyDpopProof(options(forged, { replayStore })))).reason).toBe('invalid_signature');
    expect(calls).toEqual(['remember', 'forget']);
    await expect(verifyDpopProof(options(await proofWith(key, payload), { replayStore }))).resolves.toBeDefined();
    expect(calls).toEqual(['remember', 'forget', 'remember']);
  });

  it('never forgets the jti of a proof already accepted when a forgery with that jti fails', async () => {
    const key = await testKey();
    const other = await testKey();
    const payload = claims();
    const replayStore = new MemoryDpopReplayStore({ now: () => NOW });
    const genuine = await proofWith(key, payload);
    await expect(verifyDpopProof(options(genuine, { replayStore }))).resolves.toBeDefined();
    const forged = await signProof(other.privateKey, { typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk }, payload);
    expect((await failure(verifyDpopProof(options(forged, { replayStore })))).reason).toBe('invalid_signature');
    expect((await failure(verifyDpopProof(options(genuine, { replayStore })))).reason).toBe('replayed_jti');
  });

  it('refuses a bad signature even when the store fails, and a good one with the store error', async () => {
    const key = await testKey();
    const other = await testKey();
    const broken: DpopReplayStore = {
      rememberOnce: async () => {
        throw new Error('store down');
      },
      forget: async () => {
        throw new Error('store down');
      },
    };
    const forged = await signProof(other.privateKey, { typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk }, claims());
    expect((await failure(verifyDpopProof(options(forged, { replayStore: broken })))).reason).toBe('invalid_signature');
    await expect(verifyDpopProof(options(await proofWith(key), { replayStore: broken }))).rejects.toThrow('store down');
  });

  it("keeps one key's jti from blocking another key's", async () => {
    const replayStore = new MemoryDpopReplayStore({ now: () => NOW });
    const payload = claims({ jti: 'shared' });
    await expect(
      verifyDpopProof(options(await proofWith(await testKey(), payload), { replayStore })),
    ).resolves.toBeDefined();
    await expect(
      verifyDpopProof(options(await proofWith(await testKey(), payload), { replayStore })),
    ).resolves.toBeDefined();
  });
});
