import { describe, expect, it } from 'vitest';
import { parseOpenid4vpLink } from './parse-openid4vp-link.js';

describe('parseOpenid4vpLink', () => {
  it('reads client_id, request_uri and request_uri_method from any scheme', () => {
    const link =
      'haip-vp://?client_id=x509_san_dns%3Averifier.example&request_uri=https%3A%2F%2Fverifier.example%2Fr%2F1&request_uri_method=post';
    expect(parseOpenid4vpLink(link)).toEqual({
      clientId: 'x509_san_dns:verifier.example',
      requestUri: 'https://verifier.example/r/1',
      requestUriMethod: 'post',
      request: undefined,
    });
  });

  it('refuses links that are not URLs, lack client_id, or carry both request and request_uri', () => {
    expect(() => parseOpenid4vpLink('not a link')).toThrow(/not a URL/);
    expect(() => parseOpenid4vpLink('openid4vp://?request_uri=https%3A%2F%2Fv.example')).toThrow(/client_id/);
    expect(() => parseOpenid4vpLink('openid4vp://?client_id=a&request=x&request_uri=https%3A%2F%2Fv.example')).toThrow(
      /both/,
    );
    expect(() => parseOpenid4vpLink('openid4vp://?client_id=a&response_type=vp_token')).toThrow(/only signed requests/);
  });
});
