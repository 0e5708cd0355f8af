import { randomBytes } from 'node:crypto';
import { AppError, TenantBatcher, type Clock, type Database, type PendingAuditEvent } from '@tessera/platform';
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
 *
 * Each allocation may carry its command's audit event, prepared for staging: the statement that reserves the
 * allocation stages it (storage/list-rows.ts reserveCounters), so that the counter and the event commit together
 * (issue 13 §7). An allocation answers an error only when no statement reserved it: a failure after some rounds
 * fails the rest of the batch, not the allocations already made.
 */
export interface Allocation {
  list: StoredList;
  index: number;
}

interface AllocationRequest {
  listId: string;
  audit: PendingAuditEvent | null;
}

/** Rounds per batch: each either reserves or rolls over; more means the series fills faster than it grows. */
const MAX_ROUNDS = 16;

export class EntryAllocator {
  private readonly batcher: TenantBatcher<AllocationRequest, Allocation>;

  constructor(private readonly deps: { db: Database; clock: Clock; onRollover?: (from: string, to: string) => void }) {
    this.batcher = new TenantBatcher((tenantId, requests) => this.allocateBatch(tenantId, requests), {
      maxBatchSize: 256,
    });
  }

  /** `audit`: the command's event, staged with the allocation (the command then knows it committed with it). */
  allocate(tenantId: string, listId: string, audit: PendingAuditEvent | null = null): Promise<Allocation> {
    return this.batcher.load(tenantId, { listId, audit });
  }

  private async allocateBatch(
    tenantId: string,
    requests: readonly AllocationRequest[],
  ): Promise<PromiseSettledResult<Allocation>[]> {
    const results: PromiseSettledResult<Allocation>[] = new Array(requests.length);
    const byList = new Map<string, number[]>();
    requests.forEach(({ listId }, position) => byList.set(listId, [...(byList.get(listId) ?? []), position]));
    await Promise.all(
      [...byList].map(async ([listId, positions]) => {
        const settled = await this.allocateMany(
          tenantId,
          listId,
          positions.map((p) => requests[p]!.audit),
        );
        positions.forEach((position, i) => (results[position] = settled[i]!));
      }),
    );
    return results;
  }

  /** One settled result per audit slot, in order: those reserved first are fulfilled, the rest fail together. */
  private async allocateMany(
    tenantId: string,
    listId: string,
    audit: readonly (PendingAuditEvent | null)[],
  ): Promise<PromiseSettledResult<Allocation>[]> {
    const { db, clock } = this.deps;
    const wanted = audit.length;
    const settled: PromiseSettledResult<Allocation>[] = [];
    // Made only when some allocation fails (an error captures a stack trace: not once per batch).
    let failure: unknown;
    try {
      for (let round = 0; round < MAX_ROUNDS && settled.length < wanted; round++) {
        const result = await db.withTenantSession(tenantId, (sql) =>
          reserveCounters(sql, listId, wanted - settled.length, audit.slice(settled.length)),
        );
        if (result.kind === 'missing') {
          failure = listNotFound();
          break;
        }
        if (result.kind === 'retry') continue;
        if (result.kind === 'reserved') {
          const permutation = IndexPermutation.of(result.list.permutationKey, result.list.length);
          for (let n = result.first; n < result.first + result.count; n++) {
            settled.push({ status: 'fulfilled', value: { list: result.list, index: permutation.forward(n) } });
          }
          continue;
        }
        const full = result.list;
        const next = { listId: rolloverListId(full.seriesId, full.generation + 1), permutationKey: randomBytes(32) };
        await db.withTenantSession(tenantId, (sql) => insertRollover(sql, full, next, clock.now()));
        this.deps.onRollover?.(full.listId, next.listId);
      }
    } catch (error) {
      failure = error;
    }
    if (settled.length < wanted) {
      failure ??= new AppError('conflict', 'The status list series is being filled faster than it rolls over; retry.');
      while (settled.length < wanted) settled.push({ status: 'rejected', reason: failure });
    }
    return settled;
  }
}
