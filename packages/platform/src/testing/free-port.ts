import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A free loopback port, for a server that must know its own URL before it listens (a portal's Secure flag and
 * Origin check, a registered redirect URI, a process started with its port). Taken, then released at once.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
