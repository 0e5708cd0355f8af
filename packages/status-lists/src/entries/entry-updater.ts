import { stageAuditEvents, TenantBatcher, type Clock, type Database, type PendingAuditEvent } from '@tessera/platform';
import { finalStatus, listNotFound } from '../domain/errors.js';
import { byteWithStatus, statusInByte, statusPosition } from '../domain/status-bits.js';
import { isFinalStatus, statusValueOf, type StatusInput } from '../domain/status-values.js';
import { CHUNK_BYTES, getChunks, lockList, writeChunks, type StoredList } from '../storage/list-rows.js';
import { checkAllocated } from './allocated.js';

/**
 * Status changes (issue 16 §3). The list row is locked for the read-modify-write of its chunks, so no two changes
 * of neighbouring entries in one byte undo each other, on any replica. Concurrent changes of a process are gathered
 * (per tenant, while a transaction is in flight) and each list's share applied in one transaction, in arrival
 * order: one lock, one read of the chunks concerned, one write, one version step, one commit. Each change is
 * checked on its own (allocated index, value fits, revocation final) and fails alone.
 *
 * A change may carry its command's audit event, prepared for staging: the events of the changes that were applied
 * are staged in the same transaction, so that a status and its event commit together (issue 13 §7); a change that
 * fails alone stages nothing, and when the transaction fails every change of it fails with nothing written.
 */
export interface StatusChange {
  listId: string;
  index: number;
  status: StatusInput;
  audit?: PendingAuditEvent | null;
}

export interface AppliedChange {
  list: StoredList;
  old: number;
  value: number;
}

export class EntryUpdater {
  private readonly batcher: TenantBatcher<StatusChange, AppliedChange>;

  constructor(private readonly deps: { db: Database; clock: Clock }) {
    this.batcher = new TenantBatcher((tenantId, changes) => this.applyBatch(tenantId, changes), { maxBatchSize: 256 });
  }

  update(tenantId: string, change: StatusChange): Promise<AppliedChange> {
    return this.batcher.load(tenantId, change);
  }

  private async applyBatch(
    tenantId: string,
    changes: readonly StatusChange[],
  ): Promise<PromiseSettledResult<AppliedChange>[]> {
    const results: PromiseSettledResult<AppliedChange>[] = new Array(changes.length);
    const byList = new Map<string, number[]>();
    changes.forEach((c, position) => byList.set(c.listId, [...(byList.get(c.listId) ?? []), position]));
    await Promise.all(
      [...byList].map(async ([listId, positions]) => {
        try {
          const applied = await this.applyToList(
            tenantId,
            listId,
            positions.map((p) => changes[p]!),
          );
          positions.forEach((p, i) => (results[p] = applied[i]!));
        } catch (error) {
          for (const p of positions) results[p] = { status: 'rejected', reason: error };
        }
      }),
    );
    return results;
  }

  private applyToList(
    tenantId: string,
    listId: string,
    changes: readonly StatusChange[],
  ): Promise<PromiseSettledResult<AppliedChange>[]> {
    return this.deps.db.withTenant(tenantId, async (sql) => {
      const list = await lockList(sql, listId);
      if (!list) throw listNotFound();
      const positions = changes.map((c) => (c.index < list.length ? statusPosition(c.index, list.bits) : null));
      const wanted = [...new Set(positions.filter((p) => p !== null).map((p) => Math.floor(p.byte / CHUNK_BYTES)))];
      const stored = await getChunks(sql, listId, wanted);
      const changed = new Map<number, Uint8Array>();
      const chunk = (n: number) => changed.get(n) ?? stored.get(n) ?? new Uint8Array(CHUNK_BYTES);
      const results = changes.map((change, i): PromiseSettledResult<AppliedChange> => {
        try {
          checkAllocated(list, change.index);
          const value = statusValueOf(change.status, list);
          const position = positions[i]!;
          const n = Math.floor(position.byte / CHUNK_BYTES);
          const bytes = chunk(n);
          const offset = position.byte % CHUNK_BYTES;
          const old = statusInByte(bytes[offset]!, position);
          if (old !== value) {
            if (isFinalStatus(old, list)) throw finalStatus();
            const next = changed.get(n) ?? new Uint8Array(bytes);
            next[offset] = byteWithStatus(bytes[offset]!, position, value);
            changed.set(n, next);
          }
          return { status: 'fulfilled', value: { list, old, value } };
        } catch (error) {
          return { status: 'rejected', reason: error };
        }
      });
      const staged: PendingAuditEvent[] = [];
      results.forEach((result, i) => {
        const audit = changes[i]!.audit;
        if (result.status === 'fulfilled' && audit) staged.push(audit);
      });
      // The events ride with the chunks' write; changes that set a status already held write no chunk.
      if (changed.size > 0) await writeChunks(sql, listId, changed, this.deps.clock.now(), staged);
      else await stageAuditEvents(sql, staged);
      return results;
    });
  }
}
