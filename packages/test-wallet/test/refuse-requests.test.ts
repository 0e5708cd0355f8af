import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWallet } from '../src/wallet/create-test-wallet.js';
import { queryOf, sdJwtQuery } from './support/queries.js';
import type { ClientIdPrefix, RequestObjectFault } from './support/start-test-verifier.js';
import { createWalletFixture, type WalletFixture } from './support/wallet-fixture.js';

const QUERY = queryOf(sdJwtQuery('identity', ['email']));

describe('wallet refuses requests it must not answer', () => {
  let fixture: WalletFixture;

  beforeAll(async () => {
    fixture = await createWalletFixture();
  });
  afterAll(() => fixture.close());

  const faults: Array<[RequestObjectFault, string, RegExp]> = [
    ['redirect', 'request_redirected', /answered 302/],
    ['wrong-content-type', 'request_content_type', /came as 'application\/json'/],
    ['wrong-typ', 'invalid_request_object', /typ header/],
    ['tampered-signature', 'invalid_request_object', /signature does not verify/],
  ];
  it.each(faults)('request object fault %s → %s, nothing posted', async (fault, code, message) => {
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: QUERY,
      fault,
    });
    const refusal = fixture.wallet.respond(session.link);
    await expect(refusal).rejects.toMatchObject({ code });
    await expect(refusal).rejects.toThrow(message);
    expect(session.posts).toEqual([]);
  });

  it('does not follow the redirect of a request_uri', async () => {
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: QUERY,
      fault: 'redirect',
    });
    await expect(fixture.wallet.respond(session.link)).rejects.toMatchObject({ code: 'request_redirected' });
    // The redirect target would have been the same session's request path plus /elsewhere; it was never asked for.
    expect(session.requestFetches).toHaveLength(0);
  });

  const mismatches: Array<[ClientIdPrefix, string, RegExp]> = [
    ['x509_san_dns', 'x509_san_dns:verifier.example', /san dns names \[localhost\]/],
    ['x509_hash', 'x509_hash:bm90LXRoZS1sZWFmLWNlcnRpZmljYXRlLWhhc2g', /sha-256 hash of the leaf/],
    [
      'decentralized_identifier',
      'decentralized_identifier:did:jwk:eyJrdHkiOiJPS1AiLCJjcnYiOiJFZDI1NTE5IiwieCI6IjBHZ2xmM2JuN1RFV0pyQWFxQWNyM0hHTmRKVWxHeFFxdVljXzdNRGd2RHcifQ',
      /signed by the same DID/,
    ],
  ];
  it.each(mismatches)(
    'refuses a %s client_id that does not match the signing key',
    async (prefix, clientIdOverride, message) => {
      const session = await fixture.verifier.createSession({
        prefix,
        responseMode: 'direct_post',
        dcqlQuery: QUERY,
        clientIdOverride,
      });
      const refusal = fixture.wallet.respond(session.link);
      await expect(refusal).rejects.toMatchObject({ code: 'invalid_request_object' });
      await expect(refusal).rejects.toThrow(message);
      expect(session.posts).toEqual([]);
    },
  );

  it('refuses plain http outside loopback before making any request', async () => {
    const calls: string[] = [];
    const wallet = await createTestWallet({
      fetch: (async (input: Parameters<typeof fetch>[0]) => {
        calls.push(String(input));
        throw new Error('no network expected');
      }) as typeof fetch,
    });
    const link = `openid4vp://?client_id=${encodeURIComponent('x509_san_dns:verifier.example')}&request_uri=${encodeURIComponent('http://verifier.example/request/1')}`;
    await expect(wallet.respond(link)).rejects.toMatchObject({ code: 'insecure_url' });
    expect(calls).toEqual([]);
  });

  it('refuses a link without request_uri or client_id', async () => {
    await expect(fixture.wallet.respond('openid4vp://?client_id=x509_hash%3Aabc')).rejects.toMatchObject({
      code: 'invalid_link',
    });
    await expect(
      fixture.wallet.respond('openid4vp://?request_uri=https%3A%2F%2Fverifier.example%2Fr'),
    ).rejects.toMatchObject({ code: 'invalid_link' });
  });

  it('refuses when no held credential satisfies the query, telling the verifier access_denied (OID4VP §8.5)', async () => {
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: queryOf({
        id: 'pid',
        format: 'dc+sd-jwt',
        meta: { vct_values: ['urn:eudi:pid:1'] },
        claims: [{ path: ['family_name'] }],
      }),
    });
    await expect(fixture.wallet.respond(session.link)).rejects.toMatchObject({ code: 'no_matching_credentials' });
    expect(session.posts).toHaveLength(1);
    expect(session.posts[0]).toMatchObject({ error: 'access_denied', state: expect.any(String) });
    expect(session.posts[0]).not.toHaveProperty('vp_token');
  });
});
