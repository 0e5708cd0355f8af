import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticationEvents } from '@tessera/platform';
import { startTokenService, type TokenServiceHarness } from './support/harness.js';
import { basic } from './support/codes.js';

const FORM = 'application/x-www-form-urlencoded';
const ENDPOINTS = ['/token', '/introspect', '/revoke'] as const;

/**
 * Issue 13 §9: `/token`, `/introspect` and `/revoke` declare their form bodies; a malformed body (another media type,
 * a repeated or missing parameter) is refused by the route's schema with invalid_request (400) in the OAuth envelope
 * (RFC 6749 §5.2), before the endpoint's command runs, never a 5xx.
 */
describe('form bodies of the token endpoints (pglite)', () => {
  let h: TokenServiceHarness;
  const DEMO = basic('demo-rp', 'demo-rp-secret');

  beforeAll(async () => {
    h = await startTokenService({ kind: 'pglite', upstream: false });
  }, 60_000);
  afterAll(async () => h?.close());

  const post = (url: string, contentType: string | null, payload: string, authorization = DEMO) =>
    h.app.inject({
      method: 'POST',
      url,
      headers: { authorization, ...(contentType === null ? {} : { 'content-type': contentType }) },
      payload,
    });

  it.each(ENDPOINTS)('%s refuses a body of another media type with invalid_request (400)', async (url) => {
    for (const contentType of [
      'multipart/form-data; boundary=x',
      'application/json',
      'text/plain',
      'application/xml',
    ]) {
      const res = await post(url, contentType, contentType.startsWith('multipart') ? '--x--\r\n' : 'token=a');
      expect(res.statusCode, contentType).toBe(400);
      expect(res.json()).toEqual({
        error: 'invalid_request',
        error_description: 'The body must be application/x-www-form-urlencoded.',
      });
    }
  });

  it('names a missing grant_type (RFC 6749 §4.1.3: grant_type is required)', async () => {
    const res = await post('/token', FORM, 'code=abc&redirect_uri=http%3A%2F%2F127.0.0.1%3A8400%2Fcallback');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_request', error_description: 'grant_type is required.' });
  });

  it.each([
    ['/token', 'grant_type=refresh_token&refresh_token=a&grant_type=refresh_token', 'grant_type'],
    ['/token', 'grant_type=refresh_token&refresh_token=a&refresh_token=b', 'refresh_token'],
    ['/token', 'grant_type=refresh_token&refresh_token=a&x-extension=1&x-extension=2', 'x-extension'],
    ['/introspect', 'token=a&token=b', 'token'],
    ['/revoke', 'token=a&token_type_hint=refresh_token&token_type_hint=access_token', 'token_type_hint'],
  ])(
    '%s refuses a repeated parameter (RFC 6749 §3.2) before the client is authenticated: %s',
    async (url, body, name) => {
      const failedBefore = await failedAuthentications();
      // Wrong credentials: the request must be refused for its form, not for its client.
      const res = await post(url, FORM, body, basic('demo-rp', 'wrong-secret'));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid_request', error_description: `${name} is repeated.` });
      expect(await failedAuthentications()).toBe(failedBefore);
    },
  );

  it('refuses an introspection or revocation without a token, and a request without a body', async () => {
    for (const url of ['/introspect', '/revoke']) {
      const empty = await post(url, FORM, 'token=');
      expect(empty.json()).toEqual({ error: 'invalid_request', error_description: 'token is required.' });
      const none = await post(url, FORM, 'token_type_hint=access_token');
      expect(none.json()).toEqual({ error: 'invalid_request', error_description: 'token is required.' });
    }
    for (const url of ENDPOINTS) {
      const res = await h.app.inject({ method: 'POST', url, headers: { authorization: DEMO } });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_request');
    }
  });

  it('accepts a form with a charset parameter and unknown parameters (RFC 6749 §3.2: ignored)', async () => {
    const res = await post('/introspect', `${FORM}; charset=UTF-8`, 'token=not-a-token&x-extension=1');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ active: false });
  });

  it('describes the form bodies in the OpenAPI document', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, { post: { requestBody?: { content: Record<string, { schema: unknown }> } } }>;
    };
    const schema = (path: string) =>
      doc.paths[path]?.post.requestBody?.content[FORM]?.schema as {
        required: string[];
        properties: Record<string, unknown>;
        additionalProperties: unknown;
      };
    expect(schema('/token')).toMatchObject({
      required: ['grant_type'],
      properties: { grant_type: { type: 'string' }, refresh_token: { type: 'string' }, code: { type: 'string' } },
      additionalProperties: { type: 'string' },
    });
    for (const path of ['/introspect', '/revoke'])
      expect(schema(path)).toMatchObject({ required: ['token'], properties: { token_type_hint: { type: 'string' } } });
  });

  async function failedAuthentications(): Promise<number> {
    await authenticationEvents(h.platform).flush();
    const { events } = await h.platform.audit.query({ tenantId: 'demo', type: 'authentication.failed', limit: 500 });
    return events.length;
  }
});
