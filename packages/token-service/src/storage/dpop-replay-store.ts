import { SqlDpopReplayStore } from '@tessera/pkce-dpop';
import type { Database } from '@tessera/platform';

/** The replay table of migrations/0002_dpop.sql. */
export const DPOP_REPLAY_TABLE = 'oauth_dpop_replay';

/**
 * DPoP replay state in the platform database (RFC 9449 §11.1), shared by every replica. Each call is its own
 * short platform unit of work: callers run it before they open their tenant unit (the embedded database has
 * one connection, so a unit opened inside another would wait for ever). The SQL is @tessera/pkce-dpop's.
 */
export function sqlDpopReplayStore(db: Database, now: () => Date): SqlDpopReplayStore {
  const executor = { query: (text: string, params: unknown[]) => db.withPlatform((sql) => sql.query(text, params)) };
  return new SqlDpopReplayStore(executor, { table: DPOP_REPLAY_TABLE, now });
}
