import { TenantBatcher, type Database, type Sql } from '@tessera/platform';
import type { RenderVariant, StoredDesign } from '../domain/records.js';
import { designStore, type DesignSelector, type DesignValidators } from './design-store.js';

export type ResolveRead = { stored: StoredDesign; variants: RenderVariant[] } | null;

/** One batched read per tenant: concurrent requests' selectors answered by one statement. */
function batchedRead<R>(
  db: Database,
  read: (sql: Sql, items: readonly DesignSelector[]) => Promise<R[]>,
): (tenantId: string, selector: DesignSelector) => Promise<R> {
  const batcher = new TenantBatcher<DesignSelector, R>(async (tenantId, items) => {
    const results = await db.withTenantSession(tenantId, (sql) => read(sql, items));
    return results.map((value) => ({ status: 'fulfilled' as const, value }));
  });
  return (tenantId, selector) => batcher.load(tenantId, selector);
}

/**
 * The reads of concurrent resolves of one tenant share a statement (the platform's TenantBatcher, as the token
 * service's redemptions do): under load one round trip answers many requests. Nothing is cached: each read starts
 * after its request arrived, so an edit committed before it is seen, on every replica.
 */
export function createResolveReads(db: Database): (tenantId: string, selector: DesignSelector) => Promise<ResolveRead> {
  return batchedRead(db, (sql, items) => designStore.withVariantsBatch(sql, items));
}

/**
 * What a conditional resolve reads first: the ETag's inputs only (no documents), batched the same way and, like
 * the full read, never cached. A match answers 304 from this read alone; a miss reads the design in full.
 */
export function createValidatorReads(
  db: Database,
): (tenantId: string, selector: DesignSelector) => Promise<DesignValidators | null> {
  return batchedRead(db, (sql, items) => designStore.validatorsBatch(sql, items));
}
