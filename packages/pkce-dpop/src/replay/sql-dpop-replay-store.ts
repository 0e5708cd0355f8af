import type { DpopReplayStore } from './dpop-replay-store.js';

/** The one call the store needs; a pg Pool or Client fits. */
export interface SqlExecutor {
  query(text: string, params: unknown[]): Promise<{ rowCount: number | null }>;
}

export const DEFAULT_DPOP_REPLAY_TABLE = 'dpop_replay';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}(\.[a-z_][a-z0-9_]{0,62})?$/;

function quoteTable(table: string): string {
  if (!IDENTIFIER.test(table))
    throw new TypeError('table must be a lower-case SQL identifier, optionally schema-qualified');
  return table
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
}

function quoteColumn(column: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(column)) throw new TypeError('scopeColumn must be a lower-case SQL identifier');
  return `"${column}"`;
}

/**
 * The replay table: one row per remembered key. Not tenant-scoped: the key already includes the client's key
 * thumbprint (see dpopReplayKey), so tenants cannot collide.
 */
export function createDpopReplayTableSql(table: string = DEFAULT_DPOP_REPLAY_TABLE): string {
  const name = quoteTable(table);
  const index = `"${table.replace('.', '_')}_expires_at"`;
  return [
    `CREATE TABLE IF NOT EXISTS ${name} (`,
    '  jti_key text PRIMARY KEY,',
    '  expires_at timestamptz NOT NULL',
    ');',
    `CREATE INDEX IF NOT EXISTS ${index} ON ${name} (expires_at);`,
  ].join('\n');
}

/** CREATE TABLE for the default table name; use createDpopReplayTableSql for another name. */
export const DPOP_REPLAY_TABLE_SQL = createDpopReplayTableSql(DEFAULT_DPOP_REPLAY_TABLE);

/**
 * A replay store in PostgreSQL, shared by every replica (RFC 9449 §11.1). The insert is atomic through the
 * primary key. A row that has expired but not been purged yet is taken over by the new insert (ON CONFLICT ...
 * DO UPDATE WHERE expired), so the store behaves the same whether or not purgeExpired has run; purgeExpired only
 * keeps the table small (run it from a scheduled job).
 */
export class SqlDpopReplayStore implements DpopReplayStore {
  private readonly table: string;
  private readonly conflictTarget: string;
  private readonly now: () => Date;

  constructor(
    private readonly sql: SqlExecutor,
    options: {
      table?: string;
      /**
       * A column that leads the primary key before `jti_key` and that the insert leaves to its default: a table
       * partitioned by a session setting (a tenant column with row-level security) keeps one key per partition.
       */
      scopeColumn?: string;
      now?: () => Date;
    } = {},
  ) {
    this.table = quoteTable(options.table ?? DEFAULT_DPOP_REPLAY_TABLE);
    this.conflictTarget =
      options.scopeColumn === undefined ? 'jti_key' : `${quoteColumn(options.scopeColumn)}, jti_key`;
    this.now = options.now ?? (() => new Date());
  }

  async rememberOnce(key: string, expiresAt: Date): Promise<boolean> {
    const result = await this.sql.query(
      `INSERT INTO ${this.table} AS t (jti_key, expires_at) VALUES ($1, $2)
       ON CONFLICT (${this.conflictTarget}) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE t.expires_at <= $3`,
      [key, expiresAt, this.now()],
    );
    return result.rowCount === 1;
  }

  /**
   * Marks the key expired rather than deleting it: the insert evaluates the scope column's default, so its conflict
   * target is exactly the row `rememberOnce` wrote in this scope, never another scope's row with the same key. The
   * next `rememberOnce` takes the row over; `purgeExpired` removes it.
   */
  async forget(key: string): Promise<void> {
    await this.sql.query(
      `INSERT INTO ${this.table} AS t (jti_key, expires_at) VALUES ($1, '-infinity')
       ON CONFLICT (${this.conflictTarget}) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
      [key],
    );
  }

  /** Deletes expired rows; returns how many. */
  async purgeExpired(): Promise<number> {
    const result = await this.sql.query(`DELETE FROM ${this.table} WHERE expires_at <= $1`, [this.now()]);
    return result.rowCount ?? 0;
  }
}
