import { compactVerify, EmbeddedJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  computeAccessTokenHash,
  computeJwkThumbprint,
  createDpopContext,
  createDpopProof,
  generateDpopKeyPair,
  type DpopIssuer,
  type DpopKeySigner,
} from '../src/index.js';
import { decodePart, RFC_ACCESS_TOKEN, RFC_ATH, RFC_JKT, RFC_JWK, RFC_TOKEN_REQUEST_PROOF } from './support/proofs.js';

async function issuer(alg: 'ES256' | 'ES384' = 'ES256'): Promise<DpopIssuer> {
  return { method: 'KEY_ALIAS', identifier: `test-${alg}`, signer: await generateDpopKeyPair(alg) };
}

describe('RFC 9449 examples', () => {
  it('computes the §6.1 jkt of the §4.1 example key', async () => {
    expect(await computeJwkThumbprint(RFC_JWK)).toBe(RFC_JKT);
  });

  it('computes the §7.1 ath of the example access token', () => {
    expect(computeAccessTokenHash(RFC_ACCESS_TOKEN)).toBe(RFC_ATH);
  });

  it('creates proofs of the same header and claim shape as the §4.1 example', async () => {
    const { dpopProof } = await createDpopProof({
      issuer: await issuer(),
      httpMethod: 'POST',
      httpUrl: 'https://server.example.com/token',
    });
    const rfcHeader = decodePart(RFC_TOKEN_REQUEST_PROOF, 0);
    const rfcPayload = decodePart(RFC_TOKEN_REQUEST_PROOF, 1);
    const header = decodePart(dpopProof, 0);
    const payload = decodePart(dpopProof, 1);
    expect(Object.keys(header).sort()).toEqual(Object.keys(rfcHeader).sort());
    expect(Object.keys(header.jwk as object).sort()).toEqual(Object.keys(rfcHeader.jwk as object).sort());
    expect(Object.keys(payload).sort()).toEqual(Object.keys(rfcPayload).sort());
    expect({ typ: header.typ, alg: header.alg }).toEqual({ typ: rfcHeader.typ, alg: rfcHeader.alg });
    expect({ htm: payload.htm, htu: payload.htu }).toEqual({ htm: rfcPayload.htm, htu: rfcPayload.htu });
  });
});

describe('createDpopProof', () => {
  it('signs a dpop+jwt with the public key, jti, htm, htu without query and fragment, and iat', async () => {
    const signer = await generateDpopKeyPair();
    const now = new Date('2030-01-01T00:00:00.900Z');
    const { dpopProof, jwkThumbprint } = await createDpopProof({
      issuer: { method: 'KEY_ALIAS', identifier: 'client-key', signer },
      httpMethod: 'POST',
      httpUrl: 'https://AS.example.com:443/token?x=1#frag',
      now,
    });
    const verified = await compactVerify(dpopProof, EmbeddedJWK);
    expect(verified.protectedHeader).toEqual({ typ: 'dpop+jwt', alg: 'ES256', jwk: await signer.publicJwk() });
    expect(verified.protectedHeader.jwk).not.toHaveProperty('d');
    const payload = decodePart(dpopProof, 1);
    expect(payload).toEqual({
      jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      htm: 'POST',
      htu: 'https://as.example.com/token',
      iat: Math.floor(now.getTime() / 1000),
    });
    expect(jwkThumbprint).toBe(await computeJwkThumbprint(await signer.publicJwk()));
  });

  it('adds ath when bound to an access token and nonce when one is given', async () => {
    const { dpopProof } = await createDpopProof({
      issuer: await issuer(),
      httpMethod: 'GET',
      httpUrl: 'https://resource.example.org/protectedresource',
      accessToken: RFC_ACCESS_TOKEN,
      nonce: 'eyJ7S_zG.eyJH0-Z.HX4w-7v',
    });
    expect(decodePart(dpopProof, 1)).toMatchObject({ ath: RFC_ATH, nonce: 'eyJ7S_zG.eyJH0-Z.HX4w-7v', htm: 'GET' });
  });

  it('gives every proof its own jti', async () => {
    const signerIssuer = await issuer();
    const jtis = new Set<unknown>();
    for (let i = 0; i < 20; i++) {
      const { dpopProof } = await createDpopProof({
        issuer: signerIssuer,
        httpMethod: 'GET',
        httpUrl: 'https://a.example/',
      });
      jtis.add(decodePart(dpopProof, 1).jti);
    }
    expect(jtis.size).toBe(20);
  });

  it('upper-cases the methods fetch normalises and keeps others as given', async () => {
    const signerIssuer = await issuer();
    const post = await createDpopProof({ issuer: signerIssuer, httpMethod: 'post', httpUrl: 'https://a.example/' });
    expect(decodePart(post.dpopProof, 1).htm).toBe('POST');
    const patch = await createDpopProof({ issuer: signerIssuer, httpMethod: 'PATCH', httpUrl: 'https://a.example/' });
    expect(decodePart(patch.dpopProof, 1).htm).toBe('PATCH');
    await expect(
      createDpopProof({ issuer: signerIssuer, httpMethod: 'GET /x', httpUrl: 'https://a.example/' }),
    ).rejects.toThrow(TypeError);
  });

  it('signs with ES384 on P-384', async () => {
    const { dpopProof } = await createDpopProof({
      issuer: await issuer('ES384'),
      httpMethod: 'GET',
      httpUrl: 'https://a.example/',
    });
    const verified = await compactVerify(dpopProof, EmbeddedJWK);
    expect(verified.protectedHeader.alg).toBe('ES384');
    expect(verified.protectedHeader.jwk).toMatchObject({ kty: 'EC', crv: 'P-384' });
  });

  it('refuses a URL that is not absolute http(s), or carries credentials', async () => {
    const signerIssuer = await issuer();
    for (const httpUrl of ['/token', 'ftp://a.example/x', 'https://user:pw@a.example/x']) {
      await expect(createDpopProof({ issuer: signerIssuer, httpMethod: 'GET', httpUrl })).rejects.toThrow(TypeError);
    }
  });

  it('refuses a signer whose key does not fit its algorithm', async () => {
    const p384 = await generateDpopKeyPair('ES384');
    const mismatched: DpopKeySigner = { alg: 'ES256', publicJwk: () => p384.publicJwk(), sign: (d) => p384.sign(d) };
    await expect(
      createDpopProof({
        issuer: { method: 'KEY_ALIAS', identifier: 'x', signer: mismatched },
        httpMethod: 'GET',
        httpUrl: 'https://a.example/',
      }),
    ).rejects.toThrow(/not a P-256 EC key/);
  });

  it('refuses a signer that returns a DER signature instead of r||s', async () => {
    const real = await generateDpopKeyPair();
    const der: DpopKeySigner = {
      alg: 'ES256',
      publicJwk: () => real.publicJwk(),
      sign: async (d) => new Uint8Array([0x30, 0x45, ...(await real.sign(d)), 0x00]),
    };
    await expect(
      createDpopProof({
        issuer: { method: 'KEY_ALIAS', identifier: 'x', signer: der },
        httpMethod: 'GET',
        httpUrl: 'https://a.example/',
      }),
    ).rejects.toThrow(/64-byte r\|\|s/);
  });

  it('refuses a public key that carries private members', async () => {
    const real = await generateDpopKeyPair();
    const leaky: DpopKeySigner = {
      alg: 'ES256',
      publicJwk: async () => ({ ...(await real.publicJwk()), d: 'AAAA' }),
      sign: (d) => real.sign(d),
    };
    await expect(createDpopContext({ method: 'KEY_ALIAS', identifier: 'x', signer: leaky })).rejects.toThrow(TypeError);
  });
});

describe('createDpopContext', () => {
  it('holds the public key, its thumbprint and no nonce yet', async () => {
    const signerIssuer = await issuer();
    const context = await createDpopContext(signerIssuer);
    expect(context).toEqual({
      publicJwk: await signerIssuer.signer.publicJwk(),
      issuer: signerIssuer,
      jwkThumbprint: await computeJwkThumbprint(await signerIssuer.signer.publicJwk()),
      dpopNonce: null,
    });
  });
});
