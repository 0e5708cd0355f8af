import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchRefused, isForbiddenAddress, safeFetchText } from './safe-fetch.js';

/** Security checklist "Fetching URLs": refused targets in every spelling, with no connection made. */
let server: Server;
let origin: string;
let connections = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/redirect') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
      res.end();
    } else if (req.url === '/big') {
      res.end('x'.repeat(5000));
    } else if (req.url === '/slow') {
      setTimeout(() => res.end('late'), 2000);
    } else {
      res.setHeader('content-type', 'application/statuslist+jwt');
      res.end('a.b.c');
    }
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const options = (allow: string[] = []) => ({
  timeoutMs: 500,
  maxBytes: 1000,
  allowPrivateOrigins: allow,
  accept: 'application/statuslist+jwt',
});

describe('safe fetch', () => {
  it('classifies loopback, private, link-local, metadata and mapped addresses as forbidden', () => {
    for (const a of [
      '127.0.0.1',
      '127.0.0.2',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
    ]) {
      expect(isForbiddenAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '8.8.8.8'])
      expect(isForbiddenAddress(a), a).toBe(false);
  });

  it('refuses every spelling of a loopback or metadata address without connecting', async () => {
    const before = connections;
    const port = new URL(origin).port;
    for (const host of [
      '127.0.0.1',
      '127.0.0.2',
      '[::1]',
      '0x7f000001',
      '2130706433',
      '0177.0.0.1',
      '169.254.169.254',
      'localhost',
    ]) {
      await expect(safeFetchText(`https://${host}:${port}/list`, options()), host).rejects.toThrow(FetchRefused);
    }
    await expect(safeFetchText(`${origin}/list`, options()), 'plain http').rejects.toThrow(/https/);
    await expect(safeFetchText(`https://user:pw@example.com/list`, options())).rejects.toThrow(/credentials/);
    expect(connections).toBe(before);
  });

  it('fetches an explicitly allowed fixture origin, and still refuses redirects, oversized and slow answers', async () => {
    expect(await safeFetchText(`${origin}/list`, options([origin]))).toMatchObject({
      status: 200,
      body: 'a.b.c',
      contentType: 'application/statuslist+jwt',
    });
    await expect(safeFetchText(`${origin}/redirect`, options([origin]))).rejects.toThrow(/redirect/);
    await expect(safeFetchText(`${origin}/big`, options([origin]))).rejects.toThrow(/too large/);
    await expect(safeFetchText(`${origin}/slow`, options([origin]))).rejects.toThrow(/timed out/);
  });
});
