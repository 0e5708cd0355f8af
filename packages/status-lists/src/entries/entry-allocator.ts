import { randomBytes } from 'node:crypto';
import { AppError, TenantBatcher, type Clock, type Database } from '@tessera/platform';
import { listNotFound } from '../domain/errors.js';
import { IndexPermutation } from '../domain/index-permutation.js';
import { rolloverListId } from '../domain/list-definition.js';
import { insertRollover, reserveCounters, type StoredList } from '../storage/list-rows.js';

/**
 * Allocation of entries (issue 16 §3). A list's counter lives on one row, so allocations of one list are
 * serialized by the database, each waiting for the previous commit. Concurrent allocations in this process are
 * therefore gathered (per tenant, while a statement is in flight) and each list's share reserved in one statement
 * that moves its counter by the number asked: the database still hands every range out once across replicas.
 *
 * The index of allocation number n is the list's permutation of n: random-looking, never repeated. A full list rolls
 * over: the next list of the series, same configuration, is created (once, whichever replica gets there first)
 * and the rest of the batch continues there.
 */
export interface Allocation {
  list: StoredList;
  index: number;
}

/** Rounds per batch: each either reserves or rolls over; more means the series fills faster than it grows. */
const MAX_ROUNDS = 16;

export class EntryAllocator {
  private readonly batcher: TenantBatcher<string, Allocation>;

  constructor(private readonly deps: { db: Database; clock: Clock; onRollover?: (from: string, to: string) => void }) {
    this.batcher = new TenantBatcher((tenantId, listIds) => this.allocateBatch(tenantId, listIds), {
      maxBatchSize: 256,
    });
  }

  allocate(tenantId: string, listId: string): Promise<Allocation> {
    return this.batcher.load(tenantId, listId);
  }

  private async allocateBatch(
    tenantId: string,
    listIds: readonly string[],
  ): Promise<PromiseSettledResult<Allocation>[]> {
    const results: PromiseSettledResult<Allocation>[] = new Array(listIds.length);
    const byList = new Map<string, number[]>();
    listIds.forEach((listId, position) => byList.set(listId, [...(byList.get(listId) ?? []), position]));
    await Promise.all(
      [...byList].map(async ([listId, positions]) => {
        try {
          const allocations = await this.allocateMany(tenantId, listId, positions.length);
          positions.forEach((position, i) => (results[position] = { status: 'fulfilled', value: allocations[i]! }));
        } catch (error) {
          for (const position of positions) results[position] = { status: 'rejected', reason: error };
        }
      }),
    );
    return results;
  }

  private async allocateMany(tenantId: string, listId: string, wanted: number): Promise<Allocation[]> {
    const { db, clock } = this.deps;
    const allocations: Allocation[] = [];
    for (let round = 0; round < MAX_ROUNDS && allocations.length < wanted; round++) {
      const result = await db.withTenantSession(tenantId, (sql) =>
        reserveCounters(sql, listId, wanted - allocations.length),
      );
      if (result.kind === 'missing') throw listNotFound();
      if (result.kind === 'retry') continue;
      if (result.kind === 'reserved') {
        const permutation = IndexPermutation.of(result.list.permutationKey, result.list.length);
        for (let n = result.first; n < result.first + result.count; n++) {
          allocations.push({ list: result.list, index: permutation.forward(n) });
        }
        continue;
      }
      const full = result.list;
      const next = { listId: rolloverListId(full.seriesId, full.generation + 1), permutationKey: randomBytes(32) };
      await db.withTenantSession(tenantId, (sql) => insertRollover(sql, full, next, clock.now()));
      this.deps.onRollover?.(full.listId, next.listId);
    }
    if (allocations.length < wanted) {
      throw new AppError('conflict', 'The status list series is being filled faster than it rolls over; retry.');
    }
    return allocations;
  }
}
