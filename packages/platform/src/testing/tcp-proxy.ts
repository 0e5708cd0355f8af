import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Transform } from 'node:stream';

/**
 * A loopback TCP proxy in front of a real service, which a test can cut and restore to simulate the service
 * becoming unreachable (database outage) without stopping the shared server.
 */
export interface TcpProxy {
  port: number;
  /** Refuses new connections and drops the open ones. */
  cut(): Promise<void>;
  /** Accepts connections again on the same port. */
  restore(): Promise<void>;
  /**
   * The open connections stop carrying data without closing, as behind a network path that died silently (no
   * error, no FIN); new connections work.
   */
  stall(): void;
  close(): Promise<void>;
}

export interface TcpProxyOptions {
  /** A stream each connection's bytes from the service pass through on their way to the client (to filter them). */
  fromUpstream?: () => Transform;
}

export async function startTcpProxy(
  targetHost: string,
  targetPort: number,
  options: TcpProxyOptions = {},
): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let server: Server;
  let port = 0;
  const listen = async () => {
    server = createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      sockets.add(client).add(upstream);
      const pair: [Socket, Socket] = [client, upstream];
      pairs.add(pair);
      const drop = () => {
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream);
      if (options.fromUpstream) upstream.pipe(options.fromUpstream()).pipe(client);
      else upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };
  const stop = async () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    cut: stop,
    restore: listen,
    stall() {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
      pairs.clear();
    },
    close: stop,
  };
}
