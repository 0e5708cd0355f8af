import type { Clock, Platform } from '@tessera/platform';
import { auxiliaryStore } from '../storage/auxiliary-store.js';

/**
 * Retention of auxiliary data (000 §2.6, §3.3 "after expiresAt it is eligible for automatic cleanup"): deletes
 * every record whose expiresAt has passed, in every tenant, in one platform unit of work. Reads already treat such
 * records as gone; this keeps them from staying at rest.
 */
export async function purgeExpiredAuxiliary(deps: { platform: Platform; clock: Clock }): Promise<{ purged: number }> {
  const purged = await deps.platform.db.withPlatform((sql) => auxiliaryStore.purgeExpired(sql, deps.clock.now()));
  return { purged };
}
