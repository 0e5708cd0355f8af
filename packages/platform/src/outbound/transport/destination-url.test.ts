import { describe, expect, it } from 'vitest';
import { assertPublicDestination, checkDestinationUrl } from './destination-url.js';

const policy = { allowPrivateOrigins: ['http://127.0.0.1:4000'], allowHttp: false };

describe('destination URL policy (SSRF)', () => {
  it.each([
    'https://10.0.0.5/hook',
    'https://127.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://[::ffff:192.168.1.1]/hook',
    'https://0x7f000001/hook',
    'https://localhost/hook',
    'https://100.100.100.200/',
    'http://127.0.0.1:4001/hook',
  ])('refuses %s', async (url) => {
    expect(() => checkDestinationUrl(url, policy)).toThrow();
    await expect(assertPublicDestination(url, policy)).rejects.toThrow();
  });

  it('refuses plain http, credentials and malformed URLs', () => {
    expect(() => checkDestinationUrl('http://93.184.215.14/hook', policy)).toThrow(/https/);
    expect(() => checkDestinationUrl('https://u:p@93.184.215.14/hook', policy)).toThrow(/credentials/);
    expect(() => checkDestinationUrl('not a url', policy)).toThrow(/malformed/);
  });

  it('accepts a public https address and an allow-listed origin', () => {
    expect(checkDestinationUrl('https://93.184.215.14/hook', policy).allowed).toBe(false);
    expect(checkDestinationUrl('http://127.0.0.1:4000/hook', policy).allowed).toBe(true);
  });
});
