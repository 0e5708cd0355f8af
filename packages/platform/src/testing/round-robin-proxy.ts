import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy that sends each request to the next of its targets in turn, like a load balancer in front of
 * replicas: consecutive requests of one flow land on different instances. Each request gets a fresh upstream
 * connection, so alternation is per request, not per connection. With `keepAlive`, upstream connections are
 * reused (alternation stays per request), as a production balancer keeps its upstream connections open: a
 * benchmark then measures the replicas' requests, not their TCP handshakes.
 */
export interface RoundRobinProxy {
  url: string;
  /** Requests forwarded to each target, in target order. */
  readonly counts: number[];
  setTargets(targets: string[]): void;
  close(): Promise<void>;
}

export interface RoundRobinProxyOptions {
  keepAlive?: boolean;
}

export async function startRoundRobinProxy(
  host: string,
  port: number,
  options: RoundRobinProxyOptions = {},
): Promise<RoundRobinProxy> {
  const agent = options.keepAlive ? new Agent({ keepAlive: true }) : false;
  let targets: URL[] = [];
  let counts: number[] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    const i = next++ % targets.length;
    counts[i]!++;
    const target = targets[i]!;
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    get counts() {
      return counts;
    },
    setTargets(list) {
      targets = list.map((t) => new URL(t));
      counts = list.map(() => 0);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (agent) agent.destroy();
        server.close(() => resolve());
      }),
  };
}
