import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A free loopback port. The portal and the demo relying party must know their own URL before they listen (the Secure
 * flag and Origin check; the registered redirect URI), so the test takes a port first and listens on it right after.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A clock the test can move forward and back: the bridge's sessions expire without a 5-minute wait. */
export class OffsetClock {
  offsetSeconds = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetSeconds * 1000);
  }
}
