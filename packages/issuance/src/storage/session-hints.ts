import type { SessionRow } from './session-store.js';

/**
 * The last session row this process saw for a correlation id, as a guess for the next contribution (issue 18):
 * with it, a contribution decides first and checks under the session's lock, in the statement that writes its rows,
 * that the row is still what it decided from (sessionStore.contributeIfCurrent). A stale guess (a contribution or
 * decision through another replica, an expiry) costs one more statement, never a wrong write: it is never trusted
 * for anything else. Bounded: the oldest entry goes first.
 */
export class SessionHints {
  private readonly rows = new Map<string, SessionRow>();

  constructor(private readonly capacity = 5_000) {}

  get(tenantId: string, correlationId: string): SessionRow | undefined {
    return this.rows.get(key(tenantId, correlationId));
  }

  set(tenantId: string, row: SessionRow): void {
    const k = key(tenantId, row.correlationId);
    this.rows.delete(k);
    this.rows.set(k, row);
    if (this.rows.size > this.capacity) this.rows.delete(this.rows.keys().next().value as string);
  }

  forget(tenantId: string, correlationId: string): void {
    this.rows.delete(key(tenantId, correlationId));
  }

  get size(): number {
    return this.rows.size;
  }
}

const key = (tenantId: string, correlationId: string) => `${tenantId}\u0000${correlationId}`;
