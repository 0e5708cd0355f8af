import type { LookupAddress } from 'node:dns';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isForbiddenAddress } from './address-policy.js';
import { FetchRefused, safeFetch, safeFetchText, type SafeFetchOptions } from './safe-fetch.js';

/**
 * Security checklist "Fetching URLs": a canary listens on the loopback addresses at one port; every spelling of a
 * forbidden target, every redirect chain towards it and every name resolving to it is refused, and the canary
 * counts no connection. One fixture origin is allowed explicitly.
 */
let port: number;
let canaryConnections = 0;
const canaries: TcpServer[] = [];
let fixture: Server;
let fixtureOrigin: string;
let publicFixture: Server;
let publicHits = 0;

const listen = (server: TcpServer | Server, host: string, at = 0) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at, host, () => resolve((server.address() as AddressInfo).port));
  });

beforeAll(async () => {
  const first = createTcpServer((socket) => {
    canaryConnections++;
    socket.destroy();
  });
  port = await listen(first, '127.0.0.1');
  canaries.push(first);
  for (const host of ['127.0.0.2', '::1']) {
    const canary = createTcpServer((socket) => {
      canaryConnections++;
      socket.destroy();
    });
    try {
      await listen(canary, host, port);
      canaries.push(canary);
    } catch {
      // No IPv6 loopback on this host: the IPv4 canaries still count.
    }
  }

  fixture = createHttpServer((req, res) => {
    const path = req.url ?? '/';
    if (path.startsWith('/to/')) {
      res.writeHead(302, { location: decodeURIComponent(path.slice(4)) });
      res.end();
    } else if (path === '/hop') {
      res.writeHead(307, { location: '/doc' });
      res.end();
    } else if (path === '/loop') {
      res.writeHead(301, { location: '/loop' });
      res.end();
    } else if (path === '/big') {
      res.end('x'.repeat(5000));
    } else if (path === '/big-declared') {
      res.writeHead(200, { 'content-length': '999999', 'content-type': 'application/json' });
      res.end('{}');
    } else if (path === '/slow') {
      setTimeout(() => res.end('late'), 2000).unref();
    } else if (path === '/html') {
      res.setHeader('content-type', 'text/html');
      res.end('<html></html>');
    } else if (path === '/conditional') {
      if (req.headers['if-none-match'] === '"v1"') {
        res.writeHead(304, { etag: '"v1"' });
        res.end();
      } else {
        res.writeHead(200, {
          etag: '"v1"',
          'last-modified': 'Tue, 01 Sep 2026 10:00:00 GMT',
          'content-type': 'application/json',
        });
        res.end('{"v":1}');
      }
    } else {
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end('{"ok":true}');
    }
  });
  fixtureOrigin = `http://127.0.0.1:${await listen(fixture, '127.0.0.1')}`;

  // Stands for a public server: 127.0.0.3 is declared public by the rebinding tests' address policy only.
  publicFixture = createHttpServer((req, res) => {
    publicHits++;
    if (req.url === '/hop') {
      res.writeHead(302, { location: `http://rebind.example:${port}/doc` });
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end('{"public":true}');
  });
  await listen(publicFixture, '127.0.0.3', port);
});

afterAll(async () => {
  for (const s of [...canaries, fixture, publicFixture]) {
    if ('closeAllConnections' in s) s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

const base = (over: Partial<SafeFetchOptions> = {}): SafeFetchOptions => ({
  timeoutMs: 1000,
  maxBytes: 1000,
  allowPrivateOrigins: [],
  accept: 'application/json',
  ...over,
});

/** A resolver stub: every name answers what the table says; unknown names do not resolve. */
const stub =
  (table: Record<string, string[]>) =>
  async (hostname: string): Promise<LookupAddress[]> =>
    (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('safe fetch: forbidden targets', () => {
  const spellings = () => [
    '127.0.0.1',
    '127.0.0.2',
    '127.1',
    '127.0.1',
    '2130706433',
    '0x7f000001',
    '0x7F.0.0.1',
    '0177.0.0.1',
    '017700000001',
    '0x7f.1',
    '127.0.0.1.',
    '１２７．０．０．１',
    '0.0.0.0',
    '0',
    '[::1]',
    '[0:0:0:0:0:0:0:1]',
    '[::]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[::127.0.0.1]',
    '[0:0:0:0:0:ffff:127.0.0.1]',
    '[::ffff:0:127.0.0.1]',
    '[64:ff9b::127.0.0.1]',
    '[2002:7f00:1::1]',
    '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
    'localhost',
    'localhost.',
    'LocalHost',
    'api.localhost',
    '169.254.169.254',
    '[::ffff:169.254.169.254]',
    '100.100.100.200',
    '10.0.0.1',
    '192.168.0.1',
    '[fd00:ec2::254]',
  ];

  it('refuses at least 25 spellings of loopback, private and metadata addresses with no connection made', async () => {
    const list = spellings();
    expect(list.length).toBeGreaterThanOrEqual(25);
    for (const host of list) {
      for (const scheme of ['https', 'http']) {
        await expect(
          safeFetch(`${scheme}://${host}:${port}/doc`, base({ allowHttp: true, resolve: stub({}) })),
          `${scheme}://${host}`,
        ).rejects.toThrow(FetchRefused);
      }
    }
    expect(canaryConnections).toBe(0);
  });

  it('refuses names that resolve to a forbidden address, or to a mix of public and forbidden ones', async () => {
    const resolve = stub({
      'evil.example': ['127.0.0.1'],
      'mixed.example': ['93.184.216.34', '127.0.0.1'],
      'six.example': ['::1'],
      'mapped.example': ['::ffff:127.0.0.1'],
      'metadata.example': ['169.254.169.254'],
    });
    for (const name of ['evil.example', 'mixed.example', 'six.example', 'mapped.example', 'metadata.example'])
      await expect(safeFetch(`https://${name}:${port}/doc`, base({ resolve })), name).rejects.toThrow(/not public/);
    await expect(safeFetch(`https://nowhere.example:${port}/`, base({ resolve }))).rejects.toThrow(/resolve/);
    expect(canaryConnections).toBe(0);
  });

  it('re-checks every redirect hop: chains from an allowed fixture towards loopback are refused', async () => {
    const resolve = stub({ 'evil.example': ['127.0.0.1'] });
    const to = (target: string) => `${fixtureOrigin}/to/${encodeURIComponent(target)}`;
    const chains = [
      to(`https://127.0.0.1:${port}/doc`),
      to(`http://127.0.0.1:${port}/doc`),
      to(`http://[::ffff:127.0.0.1]:${port}/doc`),
      to(`http://2130706433:${port}/doc`),
      to(`http://evil.example:${port}/doc`),
      to(`http://localhost:${port}/doc`),
      to(to(`http://0x7f000001:${port}/doc`)),
      to(to(to(`http://[::1]:${port}/doc`))),
      to(`file:///etc/passwd`),
      to(`gopher://127.0.0.1:${port}/`),
    ];
    for (const url of chains)
      await expect(
        safeFetch(url, base({ allowPrivateOrigins: [fixtureOrigin], maxRedirects: 5, resolve })),
        url,
      ).rejects.toThrow(FetchRefused);
    expect(canaryConnections).toBe(0);
  });

  it('pins the checked address for the connection: a rebinding resolver gets no second answer', async () => {
    let calls = 0;
    const resolve = async (hostname: string): Promise<LookupAddress[]> => {
      expect(hostname).toBe('rebind.example');
      calls++;
      return [{ address: calls === 1 ? '127.0.0.3' : '127.0.0.1', family: 4 }];
    };
    // 127.0.0.3 stands for a public address here; everything else follows the real policy.
    const isForbidden = (a: string) => a !== '127.0.0.3' && isForbiddenAddress(a);
    const options = base({ allowHttp: true, resolve, isForbidden, maxRedirects: 3 });
    const first = await safeFetch(`http://rebind.example:${port}/doc`, options);
    expect(first).toMatchObject({ status: 200 });
    expect(JSON.parse(first.body.toString())).toEqual({ public: true });
    expect(calls).toBe(1);
    expect(publicHits).toBe(1);
    // The next resolution answers the private address: refused before any connection.
    await expect(safeFetch(`http://rebind.example:${port}/doc`, options)).rejects.toThrow(/not public/);
    // A redirect back to the same name is resolved again, and the private answer refused.
    calls = 0;
    await expect(safeFetch(`http://rebind.example:${port}/hop`, options)).rejects.toThrow(/not public/);
    expect(calls).toBe(2);
    expect(canaryConnections).toBe(0);
  });

  it('refuses plain http to a public name outside development, and credentials in the URL', async () => {
    await expect(safeFetch(`http://example.com/doc`, base())).rejects.toThrow(/https/);
    await expect(safeFetch(`${fixtureOrigin}/doc`, base())).rejects.toThrow(/https/);
    await expect(safeFetch(`https://user:pw@example.com/doc`, base())).rejects.toThrow(/credentials/);
    await expect(safeFetch(`not a url`, base())).rejects.toThrow(/malformed/);
  });
});

describe('safe fetch: the allowed fixture origin', () => {
  const allowed = (over: Partial<SafeFetchOptions> = {}) => base({ allowPrivateOrigins: [fixtureOrigin], ...over });

  it('fetches it, follows its redirects only when allowed, and bounds their number', async () => {
    expect(await safeFetchText(`${fixtureOrigin}/doc`, allowed())).toMatchObject({
      status: 200,
      body: '{"ok":true}',
      contentType: 'application/json; charset=utf-8',
    });
    await expect(safeFetch(`${fixtureOrigin}/hop`, allowed())).rejects.toThrow(/redirects are not followed/);
    const followed = await safeFetch(`${fixtureOrigin}/hop`, allowed({ maxRedirects: 1 }));
    expect(followed).toMatchObject({ status: 200, url: `${fixtureOrigin}/doc` });
    await expect(safeFetch(`${fixtureOrigin}/loop`, allowed({ maxRedirects: 3 }))).rejects.toThrow(/too many/);
  });

  it('refuses oversized (declared or streamed), slow and wrongly typed answers', async () => {
    await expect(safeFetch(`${fixtureOrigin}/big`, allowed())).rejects.toThrow(/too large/);
    await expect(safeFetch(`${fixtureOrigin}/big-declared`, allowed())).rejects.toThrow(/too large/);
    await expect(safeFetch(`${fixtureOrigin}/slow`, allowed({ timeoutMs: 300 }))).rejects.toThrow(/timed out/);
    await expect(safeFetch(`${fixtureOrigin}/html`, allowed({ contentTypes: ['application/json'] }))).rejects.toThrow(
      /text\/html is not accepted/,
    );
    expect((await safeFetch(`${fixtureOrigin}/doc`, allowed({ contentTypes: ['application/json'] }))).status).toBe(200);
  });

  it('sends conditional validators and hands back a 304 with no body', async () => {
    const fresh = await safeFetch(`${fixtureOrigin}/conditional`, allowed());
    expect(fresh).toMatchObject({ status: 200, etag: '"v1"', lastModified: 'Tue, 01 Sep 2026 10:00:00 GMT' });
    const again = await safeFetch(`${fixtureOrigin}/conditional`, allowed({ headers: { 'if-none-match': '"v1"' } }));
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });
});
