import { EXPIRABLE } from '../domain/session-state.js';
import type { BridgeServices } from '../services.js';
import { replayIndex } from '../storage/replay-index.js';
import { sessionStore } from '../storage/session-store.js';
import { statusListCacheStore } from '../storage/status-list-cache.js';

/**
 * The session cleanup (000 §1 "background jobs remove expired sessions", §8 every 5 minutes): moves timed-out
 * sessions to EXPIRED (audited as session_failed, as on read), deletes sessions `retention.sessionSeconds` after
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
  const result = await services.platform.db.withPlatform(async (sql) => ({
    expired: await sessionStore.expireDue(sql, now, EXPIRABLE),
    deletedSessions: await sessionStore.deleteExpiredBefore(sql, ago(retention.sessionSeconds)),
    deletedDigests: await replayIndex.deleteBefore(sql, ago(retention.usedPresentationSeconds)),
    deletedStatusLists: await statusListCacheStore.deleteExpiredBefore(sql, ago(3600)),
  }));
  for (const s of result.expired) {
    await services.platform.audit.append({
      tenantId: s.tenantId,
      type: 'session_failed',
      result: 'failure',
      correlationId: s.correlationId,
      businessIds: { sessionId: s.id },
      details: { check: 'timeout', reason: `the session expired in ${s.from}` },
      occurredAt: now,
    });
  }
  return {
    expired: result.expired.length,
    deletedSessions: result.deletedSessions,
    deletedDigests: result.deletedDigests,
    deletedStatusLists: result.deletedStatusLists,
  };
}
