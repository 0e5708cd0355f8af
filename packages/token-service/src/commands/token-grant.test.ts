import { Oauth2AuthorizationServer, Oauth2ServerErrorResponseError } from '@openid4vc/oauth2';
import { describe, expect, it } from 'vitest';
import { plainGrant } from './token-grant.js';

/**
 * The plain grant parse (issue 22) decides only requests that @openid4vc/oauth2 accepts, and then as the library
 * does: for every form below, either it steps aside (undefined) or its grant equals the library's.
 */
describe('plainGrant', () => {
  const library = new Oauth2AuthorizationServer({ callbacks: {} as never });
  const viaLibrary = (form: Record<string, string>, headers: Record<string, string>) => {
    try {
      const parsed = library.parseAccessTokenRequest({
        request: { method: 'POST', url: 'https://as.example/token', headers: new Headers(headers) },
        accessTokenRequest: form,
      });
      const grant = parsed.grant as { grantType: string; code?: string; refreshToken?: string };
      if (grant.grantType === 'authorization_code') return { grantType: 'authorization_code', code: grant.code };
      if (grant.grantType === 'refresh_token') return { grantType: 'refresh_token', refreshToken: grant.refreshToken };
      return { other: grant.grantType };
    } catch (error) {
      expect(error).toBeInstanceOf(Oauth2ServerErrorResponseError);
      return { refused: (error as Oauth2ServerErrorResponseError).errorResponse.error };
    }
  };

  const cases: [string, Record<string, string>, Record<string, string>][] = [
    ['refresh', { grant_type: 'refresh_token', refresh_token: 'rt-1', scope: 'openid' }, {}],
    ['code', { grant_type: 'authorization_code', code: 'c-1', redirect_uri: 'https://rp.example/cb' }, {}],
    ['code, redirect_uri padded', { grant_type: 'authorization_code', code: 'c', redirect_uri: ' https://rp/cb ' }, {}],
    ['code, redirect_uri not a URL', { grant_type: 'authorization_code', code: 'c', redirect_uri: 'not a url' }, {}],
    ['code, empty', { grant_type: 'authorization_code', code: '' }, {}],
    ['refresh, missing', { grant_type: 'refresh_token' }, {}],
    ['refresh with resource', { grant_type: 'refresh_token', refresh_token: 'r', resource: 'http://x' }, {}],
    [
      'tx_code and user_pin differ',
      { grant_type: 'refresh_token', refresh_token: 'r', tx_code: '1', user_pin: '2' },
      {},
    ],
    ['unknown grant', { grant_type: 'password', username: 'u' }, {}],
    ['refresh with a malformed DPoP header', { grant_type: 'refresh_token', refresh_token: 'r' }, { dpop: 'x' }],
    ['code with attestation', { grant_type: 'authorization_code', code: 'c' }, { 'oauth-client-attestation': 'x' }],
  ];

  it.each(cases)('%s: steps aside or agrees with the library', (_name, form, headers) => {
    const ours = plainGrant(form, headers, false);
    if (ours !== undefined) expect(ours).toEqual(viaLibrary(form, headers));
  });

  it('decides the two plain grants itself and leaves every doubtful request to the library', () => {
    const decided = cases.filter(([, form, headers]) => plainGrant(form, headers, false) !== undefined).map(([n]) => n);
    expect(decided).toEqual(['refresh', 'code']);
    // With DPoP on, the proof is the grant command's to verify: a DPoP header does not send the request to the library.
    expect(plainGrant({ grant_type: 'refresh_token', refresh_token: 'r' }, { dpop: 'x' }, true)).toEqual({
      grantType: 'refresh_token',
      refreshToken: 'r',
    });
  });
});
