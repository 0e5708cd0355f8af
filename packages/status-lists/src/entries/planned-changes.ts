import type { PendingAuditEvent } from '@tessera/platform';
import { finalStatus } from '../domain/errors.js';
import { byteWithStatus, statusInByte, statusPosition } from '../domain/status-bits.js';
import { isFinalStatus, statusValueOf, type StatusInput } from '../domain/status-values.js';
import { CHUNK_BYTES, type StoredList } from '../storage/list-rows.js';
import { checkAllocated } from './allocated.js';

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

export interface PlannedChanges {
  /** One per change, in order: each is checked on its own and fails alone. */
  results: PromiseSettledResult<AppliedChange>[];
  /** The chunks to write (whole), by number; empty when every change sets a status already held or failed. */
  changed: Map<number, Uint8Array>;
  /** The audit events of the changes that succeeded, to stage with the write. */
  staged: PendingAuditEvent[];
}

/** The chunk numbers that hold the statuses of `indexes` (those past the list are left out). */
export const chunkNumbersOf = (list: StoredList, indexes: readonly number[]): number[] => [
  ...new Set(
    indexes
      .filter((index) => index < list.length)
      .map((index) => Math.floor(statusPosition(index, list.bits).byte / CHUNK_BYTES)),
  ),
];

/**
 * The changes applied, in arrival order, to the chunks read (absent ones are zeros): pure, so the caller decides
 * when the result may be written (entry-updater.ts: only if the list is still at the version the chunks were read
 * at).
 */
export function planChanges(
  list: StoredList,
  stored: ReadonlyMap<number, Uint8Array>,
  changes: readonly StatusChange[],
): PlannedChanges {
  const changed = new Map<number, Uint8Array>();
  const chunk = (n: number) => changed.get(n) ?? stored.get(n) ?? new Uint8Array(CHUNK_BYTES);
  const results = changes.map((change): PromiseSettledResult<AppliedChange> => {
    try {
      checkAllocated(list, change.index);
      const value = statusValueOf(change.status, list);
      const position = statusPosition(change.index, list.bits);
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
  return { results, changed, staged };
}
