import { mkdirSync } from 'node:fs';
import { PGlite, type Results } from '@electric-sql/pglite';
import { type Database, type QueryResult, type Sql, assertTenantId } from './database.js';
import { mapDatabaseError } from './errors.js';
import { PgliteChangeNotifications } from './pglite-notifications.js';
import { PgliteStatements } from './pglite-statements.js';
import { RUNTIME_ROLE } from './runtime-role.js';

/** As node-postgres: a statement that returns rows counts them; one that returns none counts what it changed. */
function queryResult<R>(res: Results<R>): QueryResult<R> {
  return { rows: res.rows, rowCount: res.fields.length > 0 ? res.rows.length : (res.affectedRows ?? 0) };
}

/** Statements of a unit of work: prepared and executed by name, scripts in one call (pglite-statements.ts). */
class UnitSql implements Sql {
  constructor(private readonly statements: PgliteStatements) {}
  async query<R>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    try {
      return queryResult(this.statements.run(text, params) as Results<R>);
    } catch (error) {
      throw mapDatabaseError(error);
    }
  }
  async exec(script: string): Promise<void> {
    try {
      this.statements.script(script);
    } catch (error) {
      throw mapDatabaseError(error);
    }
  }
}

/** Statements outside a unit of work (migrations): PGlite's own query, nothing kept prepared across DDL. */
class SessionSql implements Sql {
  constructor(private readonly pglite: PGlite) {}
  async query<R>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    try {
      return queryResult(await this.pglite.query<R>(text, params as unknown[] | undefined));
    } catch (error) {
      throw mapDatabaseError(error);
    }
  }
  async exec(script: string): Promise<void> {
    try {
      await this.pglite.exec(script);
    } catch (error) {
      throw mapDatabaseError(error);
    }
  }
}

/**
 * The embedded database: PostgreSQL compiled to WebAssembly, persisted in a data directory. One connection, so
 * PGlite runs transactions one at a time; advisory locks are process-local (no other process can open the same
 * data directory).
 */
export class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;
  private readonly heldLocks = new Set<string>();
  private role: string | null = null;
  private closed = false;

  private readonly statements: PgliteStatements;

  private constructor(readonly pglite: PGlite) {
    this.statements = new PgliteStatements(pglite);
  }

  private listener: PgliteChangeNotifications | undefined;

  get changes(): PgliteChangeNotifications {
    this.listener ??= new PgliteChangeNotifications(this.pglite);
    return this.listener;
  }

  /** `dataDir` undefined or `memory://` keeps the database in memory (tests). */
  static async open(dataDir: string | undefined): Promise<PgliteDatabase> {
    const inMemory = !dataDir || dataDir.startsWith('memory://');
    if (!inMemory) mkdirSync(dataDir, { recursive: true });
    const pglite = inMemory ? await PGlite.create() : await PGlite.create(dataDir);
    return new PgliteDatabase(pglite);
  }

  /** The embedded database always logs in as its superuser: every unit of work switches to the runtime role. */
  async enableRuntimeRole(): Promise<void> {
    this.role = RUNTIME_ROLE;
  }

  /**
   * One transaction under PGlite's transaction lock (what its own `transaction` takes, so that no other statement
   * of the engine interleaves): BEGIN and the scope's settings in one call, the statements by name, COMMIT through
   * PGlite's message handling (pglite-statements.ts). PGlite's `transaction` makes an engine call and a turn of
   * its locks per step: about 0.1 ms more per unit of work.
   */
  private async unit<T>(setup: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    if (this.closed) throw mapDatabaseError(Object.assign(new Error('database unavailable'), { code: '57P01' }));
    const statements = this.statements;
    try {
      return await this.pglite._runExclusiveTransaction(async () => {
        let result: T;
        try {
          // Inside the try: a setting that fails (a role the database lacks) leaves the block BEGIN opened aborted.
          statements.script(`BEGIN; ${setup}`);
          result = await fn(new UnitSql(statements));
        } catch (error) {
          rollBack(statements);
          throw error;
        }
        await statements.commit();
        return result;
      });
    } catch (error) {
      throw mapDatabaseError(error);
    }
  }

  withTenant<T>(tenantId: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    assertTenantId(tenantId);
    const role = this.role ? `SET LOCAL ROLE ${this.role}; ` : '';
    return this.unit(`${role}SET LOCAL app.tenant_id = '${tenantId}'; SET LOCAL app.platform = 'off'`, fn);
  }

  /** In-process, a transaction costs no round trip: the session form is the transactional one here. */
  withTenantSession<T>(tenantId: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.withTenant(tenantId, fn);
  }

  withPlatform<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    const role = this.role ? `SET LOCAL ROLE ${this.role}; ` : '';
    return this.unit(`${role}SET LOCAL app.platform = 'on'; SET LOCAL app.tenant_id = ''`, fn);
  }

  async withAdvisoryLock<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    if (this.heldLocks.has(name)) return { ran: false };
    this.heldLocks.add(name);
    try {
      return { ran: true, value: await fn() };
    } finally {
      this.heldLocks.delete(name);
    }
  }

  async migrationSession<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return fn(new SessionSql(this.pglite));
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('database closed');
    await this.pglite.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    await this.listener?.close();
    await this.pglite.close();
  }
}

/** Ends a failed unit; a rollback that fails too (the engine closing) leaves the unit's own error to report. */
function rollBack(statements: PgliteStatements): void {
  try {
    statements.script('ROLLBACK');
  } catch {
    // The error that ended the unit is the one worth reporting.
  }
}
