import { describe, expect, it } from 'vitest';
import { TenantBatcher, type BatchRunner } from './tenant-batcher.js';

/** A runner that records each batch and answers `item * 10`, failing items below zero on their own. */
function recording(answer?: BatchRunner<number, number>) {
  const batches: { tenantId: string; items: number[] }[] = [];
  const run: BatchRunner<number, number> = async (tenantId, items) => {
    batches.push({ tenantId, items: [...items] });
    if (answer) return answer(tenantId, items);
    return items.map((item) =>
      item < 0 ? { status: 'rejected', reason: new Error(`bad ${item}`) } : { status: 'fulfilled', value: item * 10 },
    );
  };
  return { batches, run };
}

describe('TenantBatcher', () => {
  it('answers the items of one tick with one batch, each waiter its own result', async () => {
    const { batches, run } = recording();
    const batcher = new TenantBatcher(run);
    const results = await Promise.all([1, 2, 3].map((n) => batcher.load('alpha', n)));
    expect(results).toEqual([10, 20, 30]);
    expect(batches).toEqual([{ tenantId: 'alpha', items: [1, 2, 3] }]);
  });

  it('fails only the item whose result failed', async () => {
    const batcher = new TenantBatcher(recording().run);
    const settled = await Promise.allSettled([
      batcher.load('alpha', 1),
      batcher.load('alpha', -1),
      batcher.load('alpha', 2),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toEqual(new Error('bad -1'));
  });

  it('fails every waiter of a batch whose statement fails, and serves the next batch', async () => {
    let fail = true;
    const failure = new Error('statement failed');
    const { batches, run } = recording(async (_tenant, items) => {
      if (fail) throw failure;
      return items.map((item) => ({ status: 'fulfilled', value: item }));
    });
    const batcher = new TenantBatcher(run);
    const settled = await Promise.allSettled([1, 2, 3].map((n) => batcher.load('alpha', n)));
    expect(settled).toEqual([1, 2, 3].map(() => ({ status: 'rejected', reason: failure })));
    fail = false;
    expect(await batcher.load('alpha', 4)).toBe(4);
    expect(batches.map((b) => b.items)).toEqual([[1, 2, 3], [4]]);
  });

  it('fails every waiter when the runner answers a wrong number of results', async () => {
    const batcher = new TenantBatcher<number, number>(async () => [{ status: 'fulfilled', value: 1 }]);
    const settled = await Promise.allSettled([batcher.load('alpha', 1), batcher.load('alpha', 2)]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
  });

  it('never puts two tenants in one batch', async () => {
    const { batches, run } = recording();
    const batcher = new TenantBatcher(run);
    const results = await Promise.all([
      batcher.load('alpha', 1),
      batcher.load('beta', 2),
      batcher.load('alpha', 3),
      batcher.load('beta', 4),
    ]);
    expect(results).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([
      { tenantId: 'alpha', items: [1, 3] },
      { tenantId: 'beta', items: [2, 4] },
    ]);
  });

  it('keeps a batch within the size bound and batches what arrives while one is in flight', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { batches, run } = recording(async (_tenant, items) => {
      if (batches.length === 1) await gate;
      return items.map((item) => ({ status: 'fulfilled', value: item }));
    });
    const batcher = new TenantBatcher(run, { maxBatchSize: 2, maxInFlight: 1 });
    const first = batcher.load('alpha', 1);
    await new Promise((resolve) => setImmediate(resolve));
    // The first statement is in flight: these wait for it, then leave two by two.
    const rest = [2, 3, 4, 5, 6].map((n) => batcher.load('alpha', n));
    release();
    expect(await Promise.all([first, ...rest])).toEqual([1, 2, 3, 4, 5, 6]);
    expect(batches.map((b) => b.items)).toEqual([[1], [2, 3], [4, 5], [6]]);
  });

  it('refuses limits below one', () => {
    expect(() => new TenantBatcher(recording().run, { maxBatchSize: 0 })).toThrow(RangeError);
    expect(() => new TenantBatcher(recording().run, { maxInFlight: 0 })).toThrow(RangeError);
  });
});
