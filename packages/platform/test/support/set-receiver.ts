import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  /** The request's path. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  acknowledged: boolean;
}

/**
 * A push receiver for the forwarding tests (RFC 8935 for SETs, or a SIEM's HTTP collector): a real HTTP server on
 * loopback that records every request and answers what the test sets, status and body.
 */
export interface SetReceiver {
  origin: string;
  url: string;
  readonly requests: ReceivedRequest[];
  /** The answer from now on; status 0 holds every request unanswered (a receiver mid-delivery). */
  answer(status: number, body?: string): void;
  /** Requests per `key` (the SET's jti, or a header such as webhook-id). */
  countsBy(key: (r: ReceivedRequest) => string): Map<string, number>;
  close(): Promise<void>;
}

/** The jti of a pushed SET, read without verifying (tests verify separately, with jose). */
export const jtiOf = (r: ReceivedRequest): string =>
  String((JSON.parse(Buffer.from(r.body.split('.')[1]!, 'base64url').toString('utf8')) as { jti: unknown }).jti);

export async function startSetReceiver(path = '/events'): Promise<SetReceiver> {
  const requests: ReceivedRequest[] = [];
  let status = 202;
  let answerBody = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        acknowledged: status >= 200 && status < 300,
      });
      if (status === 0) return;
      res.writeHead(status, answerBody ? { 'content-type': 'application/json' } : {}).end(answerBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}${path}`,
    requests,
    answer(s, body = '') {
      status = s;
      answerBody = body;
    },
    countsBy(key) {
      const counts = new Map<string, number>();
      for (const r of requests) counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
      return counts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
