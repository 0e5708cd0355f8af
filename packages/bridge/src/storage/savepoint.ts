import type { Sql } from '@tessera/platform';

/**
 * Runs `fn` under a savepoint, so that a statement failing inside it (e.g. a unique violation that a store maps
 * to a conflict) does not abort the enclosing unit of work (PostgreSQL aborts a transaction on any error).
 */
export async function withSavepoint<T>(sql: Sql, name: string, fn: () => Promise<T>): Promise<T> {
  if (!/^[a-z_]{1,32}$/.test(name)) throw new Error('invalid savepoint name');
  await sql.query(`SAVEPOINT ${name}`);
  try {
    const value = await fn();
    await sql.query(`RELEASE SAVEPOINT ${name}`);
    return value;
  } catch (error) {
    await sql.query(`ROLLBACK TO SAVEPOINT ${name}`);
    throw error;
  }
}
