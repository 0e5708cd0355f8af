import { writeSync } from 'node:fs';
import pino, { type DestinationStream } from 'pino';

const CHUNK_CHARS = 16 * 1024;
/** How long a write that the descriptor refuses for now (EAGAIN on a full non-blocking pipe) waits: sonic-boom's. */
const BUSY_WRITE_MS = 100;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * A buffered destination (stdout by default): lines are gathered in memory and written in chunks of at least
 * 16 KiB, flushed every second and at exit, so a quiet service still shows its lines promptly. The chunk is one
 * write(2) on this thread, synchronously, as pino does by default: a full pipe holds the process back rather than
 * letting lines pile up in memory.
 *
 * pino's sonic-boom opens the destination (a path or a descriptor), but the chunks are written here: sonic-boom
 * measures the byte length of every string it is given and, after a synchronous write, encodes the string again
 * to find what is left, three passes over each chunk where one suffices (~1 µs per logged request, issue 22).
 * What it handles is kept: a partial write continues with the remaining bytes, EAGAIN/EBUSY waits and retries,
 * and a broken pipe (the reader is gone) ends logging silently, as pino's own destination does.
 */
export function createLogDestination(dest: number | string): DestinationStream & { flushSync(): void } {
  const stream = pino.destination({ dest, sync: true });
  const fd = (stream as unknown as { fd: number }).fd;
  let broken = false;
  // One growing string: appending is a rope operation in V8, flattened once per chunk by the encoding.
  let pending = '';
  const handOver = () => {
    if (pending.length === 0) return;
    const chunk = pending;
    pending = '';
    if (!broken) broken = writeFully(fd, Buffer.from(chunk, 'utf8'));
  };
  const destination = {
    write(line: string): void {
      pending += line;
      if (pending.length >= CHUNK_CHARS) handOver();
    },
    flushSync(): void {
      handOver();
    },
  };
  const timer = setInterval(() => {
    try {
      handOver();
    } catch {
      // A chunk the descriptor refuses is lost; the next one is tried.
    }
  }, 1000);
  timer.unref();
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // Nothing more can be done at exit.
    }
  });
  return destination;
}

/** Writes every byte, waiting while the descriptor is busy; true when the reader has gone (EPIPE). */
function writeFully(fd: number, bytes: Buffer): boolean {
  let written = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(fd, bytes, written);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return true;
      if (code !== 'EAGAIN' && code !== 'EBUSY') throw error;
      Atomics.wait(sleeper, 0, 0, BUSY_WRITE_MS);
    }
  }
  return false;
}
