import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook receiver for tests: a real HTTP server on loopback that records every request it gets. */
export interface TestReceiver {
  origin: string;
  url: string;
  readonly requests: { headers: IncomingHttpHeaders; body: string; acknowledged: boolean }[];
  /** The status answered from now on; 0: hold every request unanswered (a receiver mid-delivery). */
  answer(status: number): void;
  /** Requests per webhook-id. */
  countsById(): Map<string, number>;
  close(): Promise<void>;
}

export async function startTestReceiver(path = '/hook'): Promise<TestReceiver> {
  const requests: { headers: IncomingHttpHeaders; body: string; acknowledged: boolean }[] = [];
  let status = 204;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ headers: req.headers, body, acknowledged: status >= 200 && status < 300 });
      if (status === 0) return;
      res.statusCode = status;
      res.end(status >= 400 ? 'receiver error text that must never be stored' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}${path}`,
    requests,
    answer(s) {
      status = s;
    },
    countsById() {
      const counts = new Map<string, number>();
      for (const r of requests) {
        const id = String(r.headers['webhook-id']);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
