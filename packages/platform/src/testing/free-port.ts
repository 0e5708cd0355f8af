import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * Ports handed out are drawn from below the ephemeral range (Linux 32768–60999, macOS and Windows 49152–65535). A
 * port the kernel picks for `listen(0)` comes from that range, which is also where every outgoing connection's
 * local port comes from (to PostgreSQL, Redis, the browser's): between the check and the server's own listen such
 * a connection could take it (EADDRINUSE seen in CI). Below the range only another listener can, and that needs
 * the same draw out of 12,000.
 */
const LOW = 20_000;
const HIGH = 32_000;
const ATTEMPTS = 50;
const handedOut = new Set<number>();

/**
 * A free loopback port, for a server that must know its own URL before it listens (a portal's Secure flag and
 * Origin check, a registered redirect URI, a process started with its port). Checked by binding it, then released.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = randomInt(LOW, HIGH);
    if (handedOut.has(port)) continue;
    // Reserved before the check, so that concurrent calls in this process never hand out the same port.
    handedOut.add(port);
    if (await bindable(port)) return port;
    handedOut.delete(port);
  }
  // The low range is crowded: the kernel's choice.
  return listenAndRelease(0);
}

async function bindable(port: number): Promise<boolean> {
  try {
    await listenAndRelease(port);
    return true;
  } catch {
    return false;
  }
}

async function listenAndRelease(port: number): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return bound;
}
