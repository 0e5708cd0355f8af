import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDLE_SOCKET_MS, keepAliveAgent } from './keep-alive-agents.js';
import { postWebhook } from './post-webhook.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** postWebhook with keepAlive: one connection for many POSTs, and never a way around the address rules. */
describe('postWebhook keepAlive', () => {
  let server: Server;
  let origin: string;
  let connections = 0;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => {
        const delay = req.url === '/slow' ? IDLE_SOCKET_MS + 300 : 0;
        setTimeout(() => res.writeHead(204).end(), delay);
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const options = (keepAlive: boolean) => ({
    timeoutMs: 5000,
    allowPrivateOrigins: [origin],
    allowHttp: false,
    keepAlive,
  });

  it('sends consecutive POSTs over one connection, a slow answer included', async () => {
    const before = connections;
    for (let i = 0; i < 5; i++)
      expect(await postWebhook(`${origin}/hook`, {}, '{}', options(true))).toEqual({ ok: true, status: 204 });
    expect(await postWebhook(`${origin}/slow`, {}, '{}', options(true))).toEqual({ ok: true, status: 204 });
    expect(await postWebhook(`${origin}/hook`, {}, '{}', options(true))).toEqual({ ok: true, status: 204 });
    expect(connections - before).toBe(1);
  });

  it('closes an idle connection after IDLE_SOCKET_MS, and opens one per POST without keepAlive', async () => {
    await sleep(IDLE_SOCKET_MS + 500);
    const before = connections;
    await postWebhook(`${origin}/hook`, {}, '{}', options(true));
    expect(connections - before).toBe(1);
    await postWebhook(`${origin}/hook`, {}, '{}', options(false));
    await postWebhook(`${origin}/hook`, {}, '{}', options(false));
    expect(connections - before).toBe(3);
  });

  it('never lends a connection opened for an allow-listed origin to a request under the address rules', async () => {
    // Pools are per agent: the allow-listed and the checked agents are distinct, per scheme.
    expect(keepAliveAgent('http:', true)).not.toBe(keepAliveAgent('http:', false));
    expect(keepAliveAgent('https:', false)).not.toBe(keepAliveAgent('http:', false));
    expect(keepAliveAgent('http:', false)).toBe(keepAliveAgent('http:', false));
    expect(await postWebhook(`${origin}/hook`, {}, '{}', options(true))).toEqual({ ok: true, status: 204 });
    const before = requests;
    const strict = { ...options(true), allowPrivateOrigins: [], allowHttp: true };
    expect(await postWebhook(`${origin}/hook`, {}, '{}', strict)).toMatchObject({ ok: false, kind: 'refused' });
    expect(requests).toBe(before);
  });
});
