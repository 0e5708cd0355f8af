import type { ChangeNotifications, ChangeSubscription } from '@tessera/platform';
import type { EtagValidators, ResolvedDesign, ResolveOptions } from '../domain/resolve-design.js';
import type { DesignSelector } from '../storage/design-store.js';

/**
 * Resolved designs kept by one process (issue 17 bench goals), so that a repeated resolve neither reads, parses
 * nor merges a document and a repeated conditional resolve does not hash its ETag inputs again.
 *
 * An entry is keyed by what names the answer (tenant, kind, design id or binding, preferred locales, render
 * target) and holds the ETag validators it was made from (design id, revision, update time, variants' ids and update
 * times: domain/resolve-design.ts). How far an entry is trusted depends on whether this process follows the
 * registry's changes (docs/decisions.md, "Resolve cache invalidated across replicas"):
 *
 * - Following (`trusted`): every committed write of a design, binding or variant, on any replica, announces its
 *   tenant on the `designs_changed` channel (a trigger of migration 0002, so no write path can omit it), and this
 *   cache drops that tenant's entries when the notification arrives, milliseconds after the commit. The writing
 *   process drops them at once after its own commit (designCommand), so a read after a write on the same replica is
 *   never stale. An entry is then answered without reading anything.
 * - Not following (the listener not yet connected, or its connection lost): an entry is used only when the
 *   design's current validators, read first (one batched statement, no document), are the ones it was made from, so
 *   a write committed before a request is seen by it, on every replica. When listening (re)starts, the cache is
 *   cleared: notifications may have been missed meanwhile.
 *
 * An entry is stored only if no invalidation happened since its request began to read (`ticket()`): a read that
 * started before a concurrent commit and ends after that commit's invalidation cannot leave its older answer behind.
 *
 * The rest of the ETag's inputs are the process's own (the tenant's configured defaults, `designs.defaultLocale`)
 * and do not change while it runs; requests with an inline OCA bundle are per request and never cached. Entries are
 * evicted least recently used beyond `maxEntries` (0: nothing is kept).
 */
export interface CachedResolve {
  /** `validatorsKey()` of the validators the entry was made from. */
  validatorsKey: string;
  etag: string;
  /** The merged design; absent when only a conditional resolve's ETag is known (no full read happened). */
  resolved?: ResolvedDesign;
}

/** The channel of the registry's committed changes; the payload is the tenant id ('' for every tenant). */
export const DESIGNS_CHANGED_CHANNEL = 'designs_changed';

/** An entry and when it last became the most recently used (ResolveCache.clock). */
interface Slot {
  entry: CachedResolve;
  stamp: number;
}

export class ResolveCache {
  private readonly entries = new Map<string, Slot>();
  /** Moves on every insertion or move to the end: a slot has at most `clock - stamp` slots after it. */
  private clock = 0;
  /** Moves on every invalidation: an entry whose read began under an older generation is not stored. */
  private generation = 0;
  private subscription: ChangeSubscription | null = null;

  constructor(private readonly maxEntries: number) {}

  /** Follows the registry's committed changes (every replica's): entries become answerable without a read. */
  follow(changes: ChangeNotifications): ChangeSubscription | null {
    if (this.maxEntries <= 0) return null;
    this.subscription = changes.subscribe(DESIGNS_CHANGED_CHANNEL, {
      changed: (tenantId) => this.invalidate(tenantId),
      reset: () => this.clear(),
    });
    return this.subscription;
  }

  /** True while every committed change reaches this cache: an entry may be answered without reading validators. */
  get trusted(): boolean {
    return this.subscription?.listening === true;
  }

  /** Taken before a request reads: `set` stores the answer only if nothing was invalidated since. */
  ticket(): number {
    return this.generation;
  }

  /** Drops the entries of `tenantId` ('' : of every tenant) after a committed change. */
  invalidate(tenantId: string): void {
    if (tenantId === '') return this.clear();
    this.generation++;
    const prefix = part(tenantId);
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Most recently used last: eviction takes the first key of the map's insertion order. A hit moves its slot to the
   * end only once more than half of `maxEntries` slots may have come after it; until then it is far from the front.
   * So a hit is kept for at least half of `maxEntries` further insertions (an approximation of least recently used)
   * and most hits cost one lookup instead of a lookup, a deletion and an insertion.
   */
  get(key: string): CachedResolve | undefined {
    const slot = this.entries.get(key);
    if (slot === undefined) return undefined;
    if (this.clock - slot.stamp > this.maxEntries >> 1) {
      this.entries.delete(key);
      slot.stamp = ++this.clock;
      this.entries.set(key, slot);
    }
    return slot.entry;
  }

  set(key: string, entry: CachedResolve, ticket: number): void {
    if (this.maxEntries <= 0 || ticket !== this.generation) return;
    this.entries.delete(key);
    this.entries.set(key, { entry, stamp: ++this.clock });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** A string with its length in front: a concatenation of such parts is read back one way only. */
const part = (value: string): string => `${value.length}:${value}`;

/**
 * The key of a resolve's answer within one process: everything of the request that the answer depends on. Built by
 * concatenating length-prefixed parts rather than JSON.stringify of a nested array: the key is made on every
 * resolve, and this is about half the work while staying injective whatever characters the values hold.
 */
export function resolveCacheKey(tenantId: string, selector: DesignSelector, options: ResolveOptions): string {
  let key = part(tenantId) + part(selector.kind);
  key += 'designId' in selector ? `i${part(selector.designId)}` : `b${part(selector.key)}${part(selector.value)}`;
  key += `${options.preferredLocales.length}:`;
  for (const locale of options.preferredLocales) key += part(locale);
  return options.renderTarget === null ? `${key}-` : `${key}t${part(options.renderTarget)}`;
}

/** The validators as one comparable string (the values resolveEtag hashes), length-prefixed as the key is. */
export function validatorsKey(validators: EtagValidators): string {
  let key = `${part(validators.designId)}${validators.revision}:${part(validators.updatedAt)}`;
  for (const [id, updatedAt] of validators.variants) key += part(id) + part(updatedAt);
  return key;
}
