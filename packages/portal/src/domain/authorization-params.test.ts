import { describe, expect, it } from 'vitest';
import {
  authorizeUrl,
  errorRedirect,
  MAX_PARAM_LENGTH,
  readAuthorizationParams,
  signinPath,
} from './authorization-params.js';

describe('the relying party request at the portal', () => {
  it('keeps the parameters /authorize understands, defaults response_type to code, drops the rest', () => {
    const read = readAuthorizationParams(
      new URLSearchParams(
        'client_id=rp&redirect_uri=https%3A%2F%2Frp.example%2Fcb&scope=openid&state=s&login_hint=someone&extra=1',
      ),
    );
    expect(read).toEqual({
      params: {
        response_type: 'code',
        client_id: 'rp',
        redirect_uri: 'https://rp.example/cb',
        scope: 'openid',
        state: 's',
      },
      repeated: null,
      tooLong: null,
    });
  });

  it('names the first repeated and the first overlong parameter', () => {
    const long = 'x'.repeat(MAX_PARAM_LENGTH + 1);
    const read = readAuthorizationParams(
      new URLSearchParams(`client_id=a&state=1&state=2&nonce=${long}&scope=a&scope=b`),
    );
    expect(read.repeated).toBe('scope');
    expect(read.tooLong).toBe('nonce');
    expect(read.params.state).toBe('1');
  });

  it('builds /authorize with every original parameter plus login_hint=oid4vp:{sessionId} (000 §4.4)', () => {
    const params = { response_type: 'code', client_id: 'rp', state: 'a b&c', code_challenge: 'x' };
    const url = new URL(authorizeUrl('https://login.example', params, '6f0c1a52-2f7e-4d55-9f3e-1b2c3d4e5f60'));
    expect(url.origin + url.pathname).toBe('https://login.example/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      ...params,
      login_hint: 'oid4vp:6f0c1a52-2f7e-4d55-9f3e-1b2c3d4e5f60',
    });
  });

  it('sends errors to the redirect URI with state and iss, keeping its own query (RFC 6749 §4.1.2.1, RFC 9207)', () => {
    const url = new URL(
      errorRedirect('https://rp.example/cb?tenant=x', {
        error: 'invalid_scope',
        description: 'no',
        state: 'st',
        iss: 'https://login.example',
      }),
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      tenant: 'x',
      error: 'invalid_scope',
      error_description: 'no',
      state: 'st',
      iss: 'https://login.example',
    });
    const noState = new URL(
      errorRedirect('https://rp.example/cb', { error: 'invalid_request', description: 'd', state: null, iss: 'i' }),
    );
    expect(noState.searchParams.has('state')).toBe(false);
  });

  it('starts again at /signin with the same parameters', () => {
    expect(signinPath({ client_id: 'rp', state: 'a&b' })).toBe('/signin?client_id=rp&state=a%26b');
  });
});
