import { TenantBatcher, type Clock, type Database, type Sql } from '@tessera/platform';
import { listNotFound } from '../domain/errors.js';
import { readForChanges, writeChanges, type ListForChanges } from '../storage/change-rows.js';
import { KnownLists } from './known-lists.js';
import { planChanges, type AppliedChange, type StatusChange } from './planned-changes.js';

export type { AppliedChange, StatusChange } from './planned-changes.js';

/** Conflicting writes (another replica changed the list between read and write) before the row is locked. */
const OPTIMISTIC_ATTEMPTS = 3;

/**
 * Status changes (issue 16 §3). A batch is a read-modify-write of the list's chunks that is written only if the
 * list's version has not moved since the read (storage/change-rows.ts), so no two changes of neighbouring entries in
 * one byte undo each other, on any replica. Concurrent changes of a process are gathered (per tenant, while a batch
 * is in flight) and each list's share applied together, in arrival order: one read of the list and the chunks
 * concerned, one write of the chunks with one version step. Each change is checked on its own (allocated index,
 * value fits, revocation final) and fails alone.
 *
 * A change may carry its command's audit event, prepared for staging: the events of the changes that were applied
 * are staged by the statement that writes the chunks, so that a status and its event commit together (issue 13
 * §7); a change that fails alone stages nothing, and when the write fails every change of it fails with nothing
 * written.
 *
 * A batch is planned first on what this process last read or wrote of the list (known-lists.ts), when that holds
 * every chunk the batch touches: its conditional write is then the batch's only statement, and when another replica
 * has moved the list since, the write does nothing and the batch goes the way above, from a fresh read.
 */
export class EntryUpdater {
  private readonly batcher: TenantBatcher<StatusChange, AppliedChange>;
  private readonly known = new KnownLists();

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

  /**
   * The read and the conditional write are single statements outside a transaction: a batch costs two round trips,
   * one when what this process knows of the list covers it (the locking transaction costs four). When another
   * replica changed the list in between, the write does nothing and the batch is planned again on a fresh read;
   * after OPTIMISTIC_ATTEMPTS such conflicts the list row is locked for the read-modify-write, so a batch always
   * ends.
   */
  private async applyToList(
    tenantId: string,
    listId: string,
    changes: readonly StatusChange[],
  ): Promise<PromiseSettledResult<AppliedChange>[]> {
    const { db } = this.deps;
    const indexes = changes.map((c) => c.index);
    const known = this.known.covering(tenantId, listId, indexes);
    if (known) {
      const applied = await db.withTenantSession(tenantId, (sql) => this.write(sql, tenantId, known, changes, true));
      if (applied) return applied;
    }
    for (let attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
      const applied = await db.withTenantSession(tenantId, async (sql) => {
        const read = await readForChanges(sql, listId, indexes, false);
        if (!read) throw listNotFound();
        return this.write(sql, tenantId, this.known.read(tenantId, read, indexes), changes);
      });
      if (applied) return applied;
    }
    return db.withTenant(tenantId, async (sql) => {
      const read = await readForChanges(sql, listId, indexes, true);
      if (!read) throw listNotFound();
      const known = this.known.read(tenantId, read, indexes);
      const applied = await this.write(sql, tenantId, known, changes);
      if (!applied) throw new Error(`status list ${listId} changed while its row was locked`);
      return applied;
    });
  }

  /**
   * The batch planned on `base` and written if the list is still at its version; null when it moved (or, for a plan
   * on what this process knew, `remembered`, when a change failed: the list may have grown allocations since, so a
   * fresh read decides).
   */
  private async write(
    sql: Sql,
    tenantId: string,
    base: ListForChanges,
    changes: readonly StatusChange[],
    remembered = false,
  ): Promise<PromiseSettledResult<AppliedChange>[] | null> {
    const { list, chunks } = base;
    const { results, changed, staged } = planChanges(list, chunks, changes);
    if (remembered && results.some((r) => r.status === 'rejected')) return null;
    // Nothing to write or stage (every change failed alone): the answers hold as of a read. A plan on what was
    // remembered still has its version checked by the write (which then writes nothing).
    if (changed.size === 0 && staged.length === 0 && !remembered) return results;
    const written = await writeChanges(sql, list.listId, list.version, changed, this.deps.clock.now(), staged);
    if (!written) {
      this.known.forget(tenantId, list.listId);
      return null;
    }
    this.known.wrote(tenantId, base, changed);
    return results;
  }
}
