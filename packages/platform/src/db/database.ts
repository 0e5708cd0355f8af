/**
 * The storage port. PostgreSQL is the one SQL dialect: the same SQL and migrations run on a real server
 * (`DATABASE_URL`) and on the embedded PGlite database.
 *
 * Tenancy is applied here and nowhere else: a unit of work runs in a transaction whose `app.tenant_id` setting
 * names the tenant, and row-level security policies on every tenant-scoped table (see migrations/0001) filter
 * reads and reject writes into any other tenant. The `tenant_id` column defaults to that setting, so a store
 * never passes the tenant and a payload can never choose it. docs/architecture.md#tenancy.
 */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface QueryOptions {
  /**
   * Prepares the statement once per connection under this name and executes it by name afterwards (PostgreSQL's
   * extended protocol), so the server parses and plans it once rather than on every call: for the few statements
   * that run for nearly every request. One name, one text. The embedded database prepares every statement of a
   * unit of work so (pglite-statements.ts), whatever this says.
   */
  prepareAs?: string;
}

export interface Sql {
  query<R = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

import type { ChangeNotifications } from './change-notifications.js';

export type DatabaseKind = 'postgres' | 'pglite';

export interface Database {
  readonly kind: DatabaseKind;
  /** Runs `fn` in one transaction scoped to `tenantId`; every statement sees and writes only that tenant's rows. */
  withTenant<T>(tenantId: string, fn: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` scoped to `tenantId` like withTenant, but outside a transaction: each statement commits on its own.
   * For a unit that is one statement (a read, or a write whose common table expressions do all of it), which is
   * atomic by itself: it saves the BEGIN and COMMIT round trips. The tenant is a session setting of the pooled
   * connection, set only when the connection last served another scope, so the usual cost is the statement alone.
   */
  withTenantSession<T>(tenantId: string, fn: (sql: Sql) => Promise<T>): Promise<T>;
  /** Runs `fn` in one transaction that sees every tenant: tenant registry, platform-administrator reads, jobs. */
  withPlatform<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` only if this process obtains the named advisory lock, which is held across all replicas on the same
   * database; answers `{ ran: false }` at once when another holder has it.
   */
  withAdvisoryLock<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
  /**
   * Notifications of committed changes across replicas (change-notifications.ts); the listener connects on the
   * first subscription and closes with the database.
   */
  readonly changes: ChangeNotifications;
  /** A round trip to the database, bounded by `timeoutMs`; throws when it is unreachable. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Tenant ids are slugs; this is checked again before they reach SQL text. */
export const TENANT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

export function assertTenantId(tenantId: string): void {
  if (!TENANT_ID_PATTERN.test(tenantId)) throw new Error(`invalid tenant id: ${JSON.stringify(tenantId)}`);
}

/**
 * Statements that open a unit of work, sent in one round trip. The tenant literal is validated by assertTenantId
 * first. `role` is the runtime role when the login role would bypass row-level security (see runtime-role.ts).
 */
export const beginTenantSql = (tenantId: string, role: string | null) =>
  `BEGIN;${role ? ` SET LOCAL ROLE ${role};` : ''} SET LOCAL app.tenant_id = '${tenantId}'; SET LOCAL app.platform = 'off'`;
export const beginPlatformSql = (role: string | null) =>
  `BEGIN;${role ? ` SET LOCAL ROLE ${role};` : ''} SET LOCAL app.platform = 'on'; SET LOCAL app.tenant_id = ''`;

/**
 * Session settings of a connection that serves withTenantSession (one round trip, only when the connection's scope
 * changes). Transactions on the same connection override them with SET LOCAL and fall back to them after.
 */
export const sessionTenantSql = (tenantId: string, role: string | null) =>
  `${role ? `SET ROLE ${role}; ` : ''}SET app.tenant_id = '${tenantId}'; SET app.platform = 'off'`;
/** Clears what sessionTenantSql set (before a connection runs migrations as the login role). */
export const RESET_SESSION_SQL = `RESET ROLE; RESET app.tenant_id; RESET app.platform`;

/** Advisory lock keys are 64-bit integers; a stable hash of the lock name keeps them readable in code. */
export function advisoryKey(name: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 16777619);
    h2 = Math.imul(h2 ^ c, 2246822519);
  }
  // PostgreSQL's bigint is signed: fold the unsigned 64-bit value into the signed range.
  return BigInt.asIntN(64, (BigInt(h1 >>> 0) << 32n) | BigInt(h2 >>> 0)).toString();
}
