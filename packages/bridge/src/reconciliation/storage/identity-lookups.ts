import type { IdentifierType, IdentityRecord, IdentityStore } from '@tessera/identity';
import { auxiliaryStore } from './auxiliary-store.js';
import {
  AppError,
  isAppError,
  TenantBatcher,
  type Clock,
  type Database,
  type TenantBatcherOptions,
} from '@tessera/platform';

/** One POST /lookup (000 §4.3) as the read side sees it: the identifier and the categories the client may see. */
export interface LookupQuery {
  type: IdentifierType;
  hash: string;
  categories: ReadonlySet<string>;
}

export interface LookupMatches {
  /** Every identity the hash matches (the command answers only when there is exactly one). */
  identities: IdentityRecord[];
  /** For a single match: its categories among the query's holding live data, sorted; else empty. */
  categories: string[];
}

/**
 * The read path of POST /lookup: the concurrent lookups of a tenant are batched (the platform's TenantBatcher) and each batch
 * costs one tenant session with two statements whatever its size: the identity store's index lookup (identities
 * and their sealed claims), then the live auxiliary categories of the single matches. Outside a transaction (a
 * session unit): each statement is consistent by itself, and the categories of an identity erased between the two
 * are simply none. Lookups of different clients share a batch: the categories are read for the union of their
 * projections and each answer keeps only its own.
 */
export class IdentityLookups {
  private readonly batcher: TenantBatcher<LookupQuery, LookupMatches>;

  constructor(
    private readonly deps: { db: Database; identities: IdentityStore; clock: Clock },
    options: TenantBatcherOptions = {},
  ) {
    this.batcher = new TenantBatcher((tenantId, queries) => this.read(tenantId, queries), options);
  }

  find(tenantId: string, query: LookupQuery): Promise<LookupMatches> {
    return this.batcher.load(tenantId, query);
  }

  private async read(
    tenantId: string,
    queries: readonly LookupQuery[],
  ): Promise<PromiseSettledResult<LookupMatches>[]> {
    const now = this.deps.clock.now();
    try {
      return await this.deps.db.withTenantSession(tenantId, async (sql) => {
        const found = await this.deps.identities.findByIdentifierHashes({ tenantId, sql }, queries);
        // Several queries of the batch may match the same identity through different projections.
        const single = new Set<string>();
        const visible = new Set<string>();
        found.forEach((f, i) => {
          if (f.status !== 'fulfilled' || f.value.length !== 1) return;
          single.add(f.value[0]!.internalIdentityId);
          for (const category of queries[i]!.categories) visible.add(category);
        });
        const live = await auxiliaryStore.liveCategoriesOf(sql, [...single], visible, now);
        return found.map((f, i): PromiseSettledResult<LookupMatches> => {
          if (f.status === 'rejected') return f;
          const only = f.value.length === 1 ? f.value[0]!.internalIdentityId : null;
          const mine = queries[i]!.categories;
          const categories = only === null ? [] : (live.get(only) ?? []).filter((c) => mine.has(c));
          return { status: 'fulfilled', value: { identities: f.value, categories } };
        });
      });
    } catch (error) {
      // Every waiter of the batch gets the failure; an unexpected one as a plain server error, its detail kept for
      // the operator's log only (000 §7 500 server_error).
      throw isAppError(error) ? error : new AppError('server_error', 'The identity lookup failed.', { cause: error });
    }
  }
}
