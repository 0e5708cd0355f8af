import { describe, expect, it } from 'vitest';
import { DeliveryLoop } from './delivery-loop.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A queue of due items and deliveries that end when the test says so. */
function harness(capacity: number, intervalMs = 60_000) {
  const due: number[] = [];
  const rooms: number[] = [];
  const open = new Map<number, () => void>();
  const delivered: number[] = [];
  const loop = new DeliveryLoop<number>({
    capacity,
    intervalMs,
    claim: async (room) => {
      rooms.push(room);
      return due.splice(0, room);
    },
    deliver: (item) =>
      new Promise<void>((resolve) =>
        open.set(item, () => {
          delivered.push(item);
          resolve();
        }),
      ),
    onError: () => undefined,
  });
  const finish = (item: number) => {
    open.get(item)!();
    open.delete(item);
  };
  return { due, rooms, open, delivered, loop, finish };
}

describe('DeliveryLoop', () => {
  it('claims again while deliveries are in flight, never more than the capacity', async () => {
    const h = harness(3);
    h.due.push(1, 2);
    h.loop.start();
    await sleep(10);
    expect([...h.open.keys()]).toEqual([1, 2]);
    // Idle with two in flight: a poke claims the room that is left, not more.
    h.due.push(3, 4, 5);
    h.loop.poke();
    await sleep(10);
    expect([...h.open.keys()]).toEqual([1, 2, 3]);
    expect(h.rooms.at(-1)).toBe(1);
    // Full: a finished delivery makes room and the loop claims at once, without a poke.
    h.finish(1);
    await sleep(10);
    expect([...h.open.keys()]).toEqual([2, 3, 4]);
    expect(h.loop.inFlight).toBe(3);
    const stopped = h.loop.stop();
    for (const item of [2, 3, 4]) h.finish(item);
    await stopped;
    expect(h.delivered.sort()).toEqual([1, 2, 3, 4]);
    expect(h.due).toEqual([5]);
  });

  it('waits the interval after a claim that found nothing, and stop waits for the deliveries in flight', async () => {
    const h = harness(10, 30);
    h.loop.start();
    await sleep(5);
    const claims = h.rooms.length;
    h.due.push(7);
    await sleep(60);
    expect(h.rooms.length).toBeGreaterThan(claims);
    expect([...h.open.keys()]).toEqual([7]);
    let stopped = false;
    const stopping = h.loop.stop().then(() => (stopped = true));
    await sleep(10);
    expect(stopped).toBe(false);
    h.finish(7);
    await stopping;
    expect(h.delivered).toEqual([7]);
  });
});
