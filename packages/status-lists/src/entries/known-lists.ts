import type { ListForChanges } from '../storage/change-rows.js';
import { CHUNK_BYTES } from '../storage/list-rows.js';
import { chunkNumbersOf } from './planned-changes.js';

/** Lists remembered per process, and chunks per list: at most 4 MiB of chunks. */
const MAX_LISTS = 64;
const MAX_CHUNKS_PER_LIST = 64;

/**
 * What this process last read or wrote of a list (entry-updater.ts): the list row and chunks as they were at the
 * list's version, zeros included for chunks never written. Every writer of chunks moves the version
 * (storage/change-rows.ts), so while the version stands these chunks are the stored ones, and a batch planned on
 * them and written only at that version is the batch planned on a fresh read. What else may change without moving
 * the version is the count of allocated entries, and it only grows: a plan on a remembered count accepts nothing a
 * fresh read would refuse (the updater reads again when it refuses anything).
 */
export class KnownLists {
  private readonly lists = new Map<string, ListForChanges>();

  /** What is known of the list, when it holds the chunks of every one of `indexes`; else null. */
  covering(tenantId: string, listId: string, indexes: readonly number[]): ListForChanges | null {
    const known = this.lists.get(keyOf(tenantId, listId));
    if (!known) return null;
    for (const n of chunkNumbersOf(known.list, indexes)) if (!known.chunks.has(n)) return null;
    return known;
  }

  /** A fresh read of the chunks of `indexes`: remembered with what is known at the same version; answers the read. */
  read(tenantId: string, read: ListForChanges, indexes: readonly number[]): ListForChanges {
    const key = keyOf(tenantId, read.list.listId);
    const before = this.lists.get(key);
    const chunks = before && before.list.version === read.list.version ? before.chunks : new Map<number, Uint8Array>();
    for (const n of chunkNumbersOf(read.list, indexes)) {
      if (chunks.size >= MAX_CHUNKS_PER_LIST && !chunks.has(n)) break;
      chunks.set(n, read.chunks.get(n) ?? new Uint8Array(CHUNK_BYTES));
    }
    this.remember(key, { list: read.list, chunks });
    return read;
  }

  /**
   * The batch planned on `base` was written: the list moved one version when chunks changed, and the changed
   * chunks are known at the new one. Chunks are never changed in place (planned-changes.ts copies a chunk it
   * changes), so the plan's base and these maps may share them.
   */
  wrote(tenantId: string, base: ListForChanges, changed: ReadonlyMap<number, Uint8Array>): void {
    const key = keyOf(tenantId, base.list.listId);
    const known = this.lists.get(key);
    if (!known || known.list.version !== base.list.version || changed.size === 0) return;
    // A chunk that was not known (the list's share is full) stays unknown: the batch that touches it reads it.
    for (const [n, bytes] of changed)
      if (known.chunks.has(n) || known.chunks.size < MAX_CHUNKS_PER_LIST) known.chunks.set(n, bytes);
    this.remember(key, {
      list: { ...known.list, version: String(BigInt(known.list.version) + 1n) },
      chunks: known.chunks,
    });
  }

  /** Another writer moved the list: what is known of it is no longer its state. */
  forget(tenantId: string, listId: string): void {
    this.lists.delete(keyOf(tenantId, listId));
  }

  private remember(key: string, known: ListForChanges): void {
    this.lists.delete(key);
    if (this.lists.size >= MAX_LISTS) this.lists.delete(this.lists.keys().next().value!);
    this.lists.set(key, known);
  }
}

const keyOf = (tenantId: string, listId: string) => `${tenantId}\n${listId}`;
