import { describe, expect, it } from 'vitest';
import { DpopReplayStoreFullError, MemoryDpopReplayStore } from '../src/index.js';

const START = new Date('2030-01-01T00:00:00.000Z');
const later = (seconds: number) => new Date(START.getTime() + seconds * 1000);

describe('MemoryDpopReplayStore', () => {
  it('answers true once per key while the key is held, and true again after it expired', async () => {
    let now = START;
    const store = new MemoryDpopReplayStore({ now: () => now });
    expect(await store.rememberOnce('k', later(10))).toBe(true);
    expect(await store.rememberOnce('k', later(10))).toBe(false);
    expect(await store.rememberOnce('other', later(10))).toBe(true);
    now = later(9.999);
    expect(await store.rememberOnce('k', later(20))).toBe(false);
    now = later(10);
    expect(await store.rememberOnce('k', later(20))).toBe(true);
  });

  it('forgets a key on request, and only that key', async () => {
    const store = new MemoryDpopReplayStore({ now: () => START });
    expect(await store.rememberOnce('k', later(10))).toBe(true);
    expect(await store.rememberOnce('other', later(10))).toBe(true);
    await store.forget('k');
    expect(await store.rememberOnce('k', later(10))).toBe(true);
    expect(await store.rememberOnce('other', later(10))).toBe(false);
    expect(store.size).toBe(2);
  });

  it('answers true to exactly one of many concurrent calls', async () => {
    const store = new MemoryDpopReplayStore({ now: () => START });
    const answers = await Promise.all(Array.from({ length: 50 }, () => store.rememberOnce('same', later(10))));
    expect(answers.filter(Boolean)).toHaveLength(1);
  });

  it('is bounded: drops expired keys when full, and fails closed when every key is live', async () => {
    let now = START;
    const store = new MemoryDpopReplayStore({ maxEntries: 2, now: () => now });
    expect(await store.rememberOnce('a', later(5))).toBe(true);
    expect(await store.rememberOnce('b', later(50))).toBe(true);
    await expect(store.rememberOnce('c', later(50))).rejects.toBeInstanceOf(DpopReplayStoreFullError);
    expect(await store.rememberOnce('a', later(5))).toBe(false);
    now = later(5);
    expect(await store.rememberOnce('c', later(50))).toBe(true);
    expect(store.size).toBe(2);
    expect(await store.rememberOnce('b', later(50))).toBe(false);
  });

  it('purges expired keys on request', async () => {
    let now = START;
    const store = new MemoryDpopReplayStore({ now: () => now });
    await store.rememberOnce('a', later(1));
    await store.rememberOnce('b', later(2));
    now = later(1);
    expect(store.purgeExpired()).toBe(1);
    expect(store.size).toBe(1);
  });
});
