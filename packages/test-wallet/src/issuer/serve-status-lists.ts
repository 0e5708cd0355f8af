import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StatusListRoute {
  /** URL path the credentials reference. */
  path: string;
  contentType: string;
  render(): Promise<string>;
}

export interface StatusListServer {
  /** Base URL of the listener, e.g. http://127.0.0.1:8500. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * A plain HTTP server that answers GET on the status list paths (Token Status List §8.1: the list is fetched with
 * a GET on the `uri`). `unavailable()` true makes every answer a 503, to test that verifiers fail closed.
 */
export async function serveStatusLists(input: {
  host?: string;
  port?: number;
  routes(): StatusListRoute[];
  unavailable(): boolean;
  /** `Cache-Control` of every list answer; default `no-cache`. */
  cacheControl?: string;
}): Promise<StatusListServer> {
  const server: Server = createServer((request, response) => {
    void (async () => {
      const path = new URL(request.url ?? '/', 'http://status.invalid').pathname;
      const route = input.routes().find((candidate) => candidate.path === path);
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        response.writeHead(405, { allow: 'GET, HEAD' }).end();
      } else if (!route) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      } else if (input.unavailable()) {
        response.writeHead(503, { 'content-type': 'text/plain' }).end('status list unavailable');
      } else {
        const body = await route.render();
        response.writeHead(200, {
          'content-type': route.contentType,
          'cache-control': input.cacheControl ?? 'no-cache',
        });
        response.end(request.method === 'HEAD' ? undefined : body);
      }
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end('status list error');
    });
  });
  const host = input.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(input.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
