import { TenantBatcher, type Database } from '@tessera/platform';
import type { RenderVariant, StoredDesign } from '../domain/records.js';
import { designStore, type DesignSelector } from './design-store.js';

export type ResolveRead = { stored: StoredDesign; variants: RenderVariant[] } | null;

/**
 * The reads of concurrent resolves of one tenant share a statement (the platform's TenantBatcher, as the token
 * service's redemptions do): under load one round trip answers many requests. Nothing is cached: each read starts
 * after its request arrived, so an edit committed before it is seen, on every replica.
 */
export function createResolveReads(db: Database): (tenantId: string, selector: DesignSelector) => Promise<ResolveRead> {
  const batcher = new TenantBatcher<DesignSelector, ResolveRead>(async (tenantId, items) => {
    const results = await db.withTenantSession(tenantId, (sql) => designStore.withVariantsBatch(sql, items));
    return results.map((value) => ({ status: 'fulfilled' as const, value }));
  });
  return (tenantId, selector) => batcher.load(tenantId, selector);
}
