import pg from 'pg';
import {
  type Database,
  type QueryOptions,
  type QueryResult,
  type Sql,
  advisoryKey,
  assertTenantId,
  beginTenantSql,
  beginPlatformSql,
  sessionTenantSql,
  RESET_SESSION_SQL,
} from './database.js';
import { mapDatabaseError } from './errors.js';
import { PostgresChangeNotifications } from './postgres-notifications.js';
import { RUNTIME_ROLE } from './runtime-role.js';
import { installTimestamptzParser } from './timestamptz.js';

export interface PostgresOptions {
  url: string;
  maxPoolSize: number;
  connectTimeoutSeconds: number;
  statementTimeoutSeconds: number;
  /** Switch each connection to the runtime role when the login role would bypass row-level security. */
  useRuntimeRole: boolean;
}

// int8 (counts, bigint ids) as JavaScript numbers: our counters stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
installTimestamptzParser();

class ClientSql implements Sql {
  constructor(private readonly client: pg.PoolClient) {}
  async query<R>(text: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> {
    try {
      const values = params as unknown[] | undefined;
      const res = await (options?.prepareAs
        ? this.client.query({ name: options.prepareAs, text, values })
        : this.client.query(text, values));
      return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
    } catch (error) {
      throw mapDatabaseError(error);
    }
  }
  async exec(script: string): Promise<void> {
    try {
      await this.client.query(script);
    } catch (error) {
      throw mapDatabaseError(error);
    }
  }
}

export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;
  /** The role each unit of work switches to, or null when the login role is already bound by RLS. */
  private role: string | null = null;

  private constructor(private readonly options: PostgresOptions) {
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.maxPoolSize,
      connectionTimeoutMillis: options.connectTimeoutSeconds * 1000,
      statement_timeout: options.statementTimeoutSeconds * 1000,
      idleTimeoutMillis: 30_000,
    });
    // An idle client that loses its connection emits 'error' on the pool; without a listener the process dies.
    this.pool.on('error', () => undefined);
  }

  private listener: PostgresChangeNotifications | undefined;

  get changes(): PostgresChangeNotifications {
    this.listener ??= new PostgresChangeNotifications({
      url: this.options.url,
      connectTimeoutSeconds: this.options.connectTimeoutSeconds,
    });
    return this.listener;
  }

  static async open(options: PostgresOptions): Promise<PostgresDatabase> {
    const db = new PostgresDatabase(options);
    return db;
  }

  /** Called after migrations: from now on, new connections drop to the runtime role if the login bypasses RLS. */
  async enableRuntimeRole(): Promise<void> {
    if (!this.options.useRuntimeRole) return;
    const res = await this.pool.query<{ bypass: boolean }>(
      `SELECT (rolsuper OR rolbypassrls) AS bypass FROM pg_roles WHERE rolname = current_user`,
    );
    if (res.rows[0]?.bypass) this.role = RUNTIME_ROLE;
  }

  private readonly guarded = new WeakSet<pg.PoolClient>();

  private async connect(): Promise<pg.PoolClient> {
    try {
      const client = await this.pool.connect();
      // A connection lost while checked out emits 'error' on the client; the failing query reports it, so the
      // event itself must not become an uncaught exception.
      if (!this.guarded.has(client)) {
        client.on('error', () => undefined);
        this.guarded.add(client);
      }
      return client;
    } catch (error) {
      throw mapDatabaseError(error);
    }
  }

  private async unit<T>(begin: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    const client = await this.connect();
    let broken = false;
    try {
      await client.query(begin);
      const value = await fn(new ClientSql(client));
      // COMMIT of a transaction that a failed statement aborted answers ROLLBACK, not an error: the unit's writes
      // are gone, and its caller must not take it for done (PGlite's transaction throws the same way).
      const commit = await client.query('COMMIT');
      if (commit.command === 'ROLLBACK') throw abortedUnit();
      return value;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      throw mapDatabaseError(error);
    } finally {
      client.release(broken);
    }
  }

  withTenant<T>(tenantId: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    assertTenantId(tenantId);
    return this.unit(beginTenantSql(tenantId, this.role), fn);
  }

  withPlatform<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.unit(beginPlatformSql(this.role), fn);
  }

  /** The session scope each pooled connection was last given by withTenantSession (role and tenant). */
  private readonly sessionScopes = new WeakMap<pg.PoolClient, string>();

  async withTenantSession<T>(tenantId: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    assertTenantId(tenantId);
    const client = await this.connect();
    try {
      const scope = `${this.role ?? ''}|${tenantId}`;
      if (this.sessionScopes.get(client) !== scope) {
        // Forget the old scope first: if the SET fails half-way, the next use sets it again.
        this.sessionScopes.delete(client);
        await client.query(sessionTenantSql(tenantId, this.role));
        this.sessionScopes.set(client, scope);
      }
      return await fn(new ClientSql(client));
    } catch (error) {
      throw mapDatabaseError(error);
    } finally {
      client.release();
    }
  }

  async withAdvisoryLock<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    const client = await this.connect();
    const key = advisoryKey(name);
    let locked = false;
    try {
      const res = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key]);
      locked = res.rows[0]?.ok === true;
      if (!locked) return { ran: false };
      return { ran: true, value: await fn() };
    } finally {
      if (locked) await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]).catch(() => undefined);
      client.release();
    }
  }

  /** Runs statements outside any tenant scope as the login role: migrations only. */
  async migrationSession<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    const client = await this.connect();
    try {
      if (this.sessionScopes.has(client)) {
        await client.query(RESET_SESSION_SQL);
        this.sessionScopes.delete(client);
      }
      return await fn(new ClientSql(client));
    } finally {
      client.release();
    }
  }

  async ping(timeoutMs = 2000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('database ping timed out')), timeoutMs);
    });
    try {
      await Promise.race([this.pool.query('SELECT 1'), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.listener?.close();
    await this.pool.end();
  }
}

function abortedUnit(): Error {
  return Object.assign(new Error('The unit of work was rolled back: a statement in it failed.'), { code: '25P02' });
}
