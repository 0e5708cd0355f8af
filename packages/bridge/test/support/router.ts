import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A load balancer in front of several instances, for tests: each request goes to the instance `route` names, and
 * every forwarded request is recorded, so that a test can show which instance served what.
 */
export interface Router {
  url: string;
  served: { method: string; path: string; target: string }[];
  close(): Promise<void>;
}

export async function startRouter(
  targets: Record<string, string>,
  route: (req: IncomingMessage) => string,
): Promise<Router> {
  const served: Router['served'] = [];
  const server: Server = createServer((req, res) => {
    const name = route(req);
    const target = new URL(targets[name]!);
    served.push({ method: req.method ?? 'GET', path: req.url ?? '/', target: name });
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: req.headers.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.statusCode = 502;
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
