import { StagedAuditEvents } from '@tessera/platform';
import { EXPIRABLE } from '../domain/session-state.js';
import type { BridgeServices } from '../services.js';
import { replayIndex } from '../storage/replay-index.js';
import { sessionStore } from '../storage/session-store.js';
import { statusListCacheStore } from '../storage/status-list-cache.js';

/**
 * The session cleanup (000 §1 "background jobs remove expired sessions", §8 every 5 minutes): moves timed-out
 * sessions to EXPIRED (audited as session_failed, as on read: each tenant's moves and their events in one unit of work
 * of the tenant, issue 13 §7), deletes sessions `retention.sessionSeconds` after
 * their expiry, replay digests after `retention.usedPresentationSeconds`, and status lists expired an hour ago.
 */
export interface CleanupCounts {
  expired: number;
  deletedSessions: number;
  deletedDigests: number;
  deletedStatusLists: number;
}

export async function expireSessions(services: BridgeServices): Promise<CleanupCounts> {
  const now = services.clock.now();
  const { retention } = services.config;
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
  const tenants = await services.platform.db.withPlatform((sql) => sessionStore.tenantsWithDue(sql, now, EXPIRABLE));
  let expired = 0;
  for (const tenantId of tenants) {
    const events = new StagedAuditEvents(services.platform.audit);
    expired += await services.platform.db.withTenant(tenantId, async (sql) => {
      const moved = await sessionStore.expireDue(sql, now, EXPIRABLE);
      for (const s of moved)
        await events.stage(sql, {
          tenantId,
          type: 'session_failed',
          result: 'failure',
          correlationId: s.correlationId,
          businessIds: { sessionId: s.id },
          details: { check: 'timeout', reason: `the session expired in ${s.from}` },
          occurredAt: now,
        });
      return moved.length;
    });
    await events.chain();
  }
  const result = await services.platform.db.withPlatform(async (sql) => ({
    deletedSessions: await sessionStore.deleteExpiredBefore(sql, ago(retention.sessionSeconds)),
    deletedDigests: await replayIndex.deleteBefore(sql, ago(retention.usedPresentationSeconds)),
    deletedStatusLists: await statusListCacheStore.deleteExpiredBefore(sql, ago(3600)),
  }));
  return {
    expired,
    deletedSessions: result.deletedSessions,
    deletedDigests: result.deletedDigests,
    deletedStatusLists: result.deletedStatusLists,
  };
}
