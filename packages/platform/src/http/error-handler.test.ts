import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformMigrations } from '../db/migrate.js';
import { createTestPlatform, type TestPlatform } from '../testing/index.js';
import { createRoleApp, type RoleApp } from './create-app.js';

/**
 * Errors produced before routing answer in the role's API family envelope (issue 14 §9), over a real listening
 * server: headers over Node's limit (431 from the parser), a URL that does not decode and a path parameter over
 * maxParamLength (Fastify's own errors).
 */
describe('errors before routing', () => {
  let t: TestPlatform;
  const apps: { oauth?: RoleApp; design?: RoleApp } = {};
  const urls: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestPlatform('pglite', { migrations: platformMigrations });
    for (const family of ['oauth', 'design'] as const) {
      const app = await createRoleApp(t.platform, { role: `test-${family}`, title: 'Test', family });
      app.get('/items/:id', { config: { auth: 'none', tenant: 'none' } }, async () => ({ ok: true }));
      await app.listen({ host: '127.0.0.1', port: 0 });
      apps[family] = app;
      urls[family] = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    }
  });
  afterAll(async () => {
    await apps.oauth?.close();
    await apps.design?.close();
    await t?.close();
  });

  /** A raw request (fetch refuses some of these before sending). */
  function send(url: string, path: string, headers: Record<string, string> = {}) {
    return new Promise<{ status: number; contentType: string; body: unknown }>((resolve, reject) => {
      const req = httpRequest(`${url}${path}`, { headers }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            contentType: String(res.headers['content-type']),
            body: JSON.parse(text),
          }),
        );
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('431: headers over the limit, in the OAuth envelope and the design envelope', async () => {
    const huge = { 'x-padding': 'a'.repeat(20_000) };
    const oauth = await send(urls.oauth!, '/items/1', huge);
    expect(oauth.status).toBe(431);
    expect(oauth.contentType).toMatch(/^application\/json/);
    expect(oauth.body).toEqual({ error: 'invalid_request', error_description: 'The request headers are too large.' });
    const design = await send(urls.design!, '/items/1', huge);
    expect(design.status).toBe(431);
    expect(design.body).toEqual({ code: expect.any(String), message: 'The request headers are too large.' });
    expect(design.body).not.toHaveProperty('statusCode');
  });

  it('a URL that does not decode (400) and a path parameter over the limit (414)', async () => {
    const bad = await send(urls.oauth!, '/items/%E0%A4%A');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'invalid_request', error_description: 'The URL is not valid.' });
    const long = await send(urls.oauth!, `/items/${'x'.repeat(600)}`);
    expect(long.status).toBe(414);
    expect(long.body).toEqual({
      error: 'invalid_request',
      error_description: 'A path segment of the URL is too long.',
    });
  });
});
