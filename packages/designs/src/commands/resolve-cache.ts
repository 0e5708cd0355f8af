import type { EtagValidators, ResolvedDesign, ResolveOptions } from '../domain/resolve-design.js';
import type { DesignSelector } from '../storage/design-store.js';

/**
 * Resolved designs kept by one process (issue 17 bench goals), so that a repeated resolve neither reads, parses
 * nor merges a document and a repeated conditional resolve does not hash its ETag inputs again.
 *
 * An entry is keyed by what names the answer (tenant, kind, design id or binding, preferred locales, render
 * target) and holds the ETag validators it was made from (design id, revision, update time, variants' ids and update
 * times: domain/resolve-design.ts). It is never answered on its own: every resolve that uses it first reads the
 * design's current validators (one batched statement, no document), and the entry is used only when they are the
 * ones it was made from. Any write moves them (an update bumps the revision and update time, a variant's create,
 * update or delete changes the variant list, a rebinding changes the design id the binding reads, a deletion
 * leaves nothing to read), so a write committed before a request is seen by it, on this replica and on every
 * other: the cache is keyed by content, as the ETag is (both assume the answer is a function of these inputs).
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

export class ResolveCache {
  private readonly entries = new Map<string, CachedResolve>();

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): CachedResolve | undefined {
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      // Most recently used last: eviction takes the first key of the map's insertion order.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedResolve): void {
    if (this.maxEntries <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, entry);
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
