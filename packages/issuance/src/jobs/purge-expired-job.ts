import type { Clock, Database, JobDefinition, Logger } from '@tessera/platform';
import { purgeStore } from '../storage/purge-store.js';

/** Sessions past their ttl are removed with their sealed bag; the platform scheduler runs it once across replicas. */
export const PURGE_EXPIRED_JOB = 'issuance.sessions.purge-expired';
export const PURGE_INTERVAL_SECONDS = 300;
const BATCH = 1000;

/** Removes what expired at `now`, batch by batch (one short transaction each). Answers the counts. */
export async function purgeExpired(
  db: Database,
  now: Date,
  signal?: AbortSignal,
): Promise<{ sessions: number; spentTokens: number }> {
  let sessions = 0;
  let spentTokens = 0;
  for (;;) {
    if (signal?.aborted) break;
    const n = await db.withPlatform((sql) => purgeStore.expiredSessions(sql, now, BATCH));
    sessions += n;
    if (n < BATCH) break;
  }
  for (;;) {
    if (signal?.aborted) break;
    const n = await db.withPlatform((sql) => purgeStore.spentTokens(sql, now, BATCH));
    spentTokens += n;
    if (n < BATCH) break;
  }
  return { sessions, spentTokens };
}

export function purgeExpiredJob(options: { db: Database; clock: Clock; logger?: Logger }): JobDefinition {
  return {
    name: PURGE_EXPIRED_JOB,
    intervalSeconds: PURGE_INTERVAL_SECONDS,
    run: async (signal) => {
      const counts = await purgeExpired(options.db, options.clock.now(), signal);
      if (counts.sessions > 0 || counts.spentTokens > 0) options.logger?.info(counts, 'expired issuance data purged');
    },
  };
}
