import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postWebhook } from './post-webhook.js';

/** The signed POST with its response body kept (readBody), for synchronous callers; the SSRF rule still holds. */
describe('postWebhook readBody', () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/big') res.writeHead(200).end('x'.repeat(5000));
        else if (req.url === '/fail') res.writeHead(503).end('busy');
        else
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ echo: req.headers['user-agent'] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const options = () => ({
    timeoutMs: 5000,
    allowPrivateOrigins: [origin],
    allowHttp: false,
    readBody: { maxBytes: 1024 },
  });

  it('answers the body of a 2xx, and sends the given user agent', async () => {
    const outcome = await postWebhook(`${origin}/ok`, {}, '{}', { ...options(), userAgent: 'tessera-connectors' });
    expect(outcome).toEqual({ ok: true, status: 200, body: JSON.stringify({ echo: 'tessera-connectors' }) });
  });

  it('fails a body over the limit, keeps no body of a failure, and drops it when not asked', async () => {
    expect(await postWebhook(`${origin}/big`, {}, '{}', options())).toMatchObject({ ok: false, kind: 'network' });
    expect(await postWebhook(`${origin}/fail`, {}, '{}', options())).toEqual({
      ok: false,
      kind: 'http_status',
      status: 503,
      message: 'answered 503',
    });
    const { readBody: _, ...plain } = options();
    expect(await postWebhook(`${origin}/ok`, {}, '{}', plain)).toEqual({ ok: true, status: 200 });
  });

  it('still refuses a private address that is not allowed', async () => {
    const { allowPrivateOrigins: _, ...closed } = options();
    expect(await postWebhook(`${origin}/ok`, {}, '{}', { ...closed, allowPrivateOrigins: [] })).toMatchObject({
      ok: false,
      kind: 'refused',
    });
  });
});
