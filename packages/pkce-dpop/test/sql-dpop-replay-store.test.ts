import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDpopReplayTableSql, DPOP_REPLAY_TABLE_SQL, SqlDpopReplayStore, verifyDpopProof } from '../src/index.js';
import { signProof, testKey } from './support/proofs.js';

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const START = new Date('2030-01-01T00:00:00.000Z');
const later = (seconds: number) => new Date(START.getTime() + seconds * 1000);

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('SqlDpopReplayStore (real PostgreSQL)', () => {
  const database = `tessera_dpop_${randomBytes(6).toString('hex')}`;
  let pool: pg.Pool;

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${database}`);
    const url = new URL(ADMIN_URL);
    url.pathname = `/${database}`;
    pool = new pg.Pool({ connectionString: url.toString(), max: 8 });
    // The final DROP ... WITH (FORCE) may reach a connection that is still closing; that is the teardown, not a fault.
    pool.on('error', (error: Error & { code?: string }) => {
      if (error.code !== '57P01') throw error;
    });
    await pool.query(DPOP_REPLAY_TABLE_SQL);
  });
  afterAll(async () => {
    await pool?.end();
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  it('creates the table described by the exported statement, idempotently', async () => {
    await pool.query(DPOP_REPLAY_TABLE_SQL);
    const columns = await pool.query(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'dpop_replay' ORDER BY ordinal_position`,
    );
    expect(columns.rows).toEqual([
      { column_name: 'jti_key', data_type: 'text' },
      { column_name: 'expires_at', data_type: 'timestamp with time zone' },
    ]);
  });

  it('answers true once per key while it is held', async () => {
    const store = new SqlDpopReplayStore(pool, { now: () => START });
    expect(await store.rememberOnce('k1', later(66))).toBe(true);
    expect(await store.rememberOnce('k1', later(66))).toBe(false);
    expect(await store.rememberOnce('k2', later(66))).toBe(true);
  });

  it('forgets a key on request: the row is expired, taken over by the next call and purged', async () => {
    const store = new SqlDpopReplayStore(pool, { now: () => START });
    expect(await store.rememberOnce('forgotten', later(66))).toBe(true);
    expect(await store.rememberOnce('kept', later(66))).toBe(true);
    await store.forget('forgotten');
    expect(await store.rememberOnce('forgotten', later(66))).toBe(true);
    expect(await store.rememberOnce('kept', later(66))).toBe(false);
    await store.forget('forgotten');
    const before = await pool.query(`SELECT count(*)::int AS n FROM dpop_replay WHERE jti_key = 'forgotten'`);
    expect(before.rows[0].n).toBe(1);
    await store.purgeExpired();
    const after = await pool.query(`SELECT count(*)::int AS n FROM dpop_replay WHERE jti_key = 'forgotten'`);
    expect(after.rows[0].n).toBe(0);
  });

  it('takes over an expired row that has not been purged yet', async () => {
    let now = START;
    const store = new SqlDpopReplayStore(pool, { now: () => now });
    expect(await store.rememberOnce('k3', later(66))).toBe(true);
    now = later(65.999);
    expect(await store.rememberOnce('k3', later(131))).toBe(false);
    now = later(66);
    expect(await store.rememberOnce('k3', later(132))).toBe(true);
    const row = await pool.query('SELECT expires_at FROM dpop_replay WHERE jti_key = $1', ['k3']);
    expect((row.rows[0] as { expires_at: Date }).expires_at.toISOString()).toBe(later(132).toISOString());
    expect(await store.rememberOnce('k3', later(132))).toBe(false);
  });

  it('purges expired rows', async () => {
    let now = START;
    const store = new SqlDpopReplayStore(pool, { table: 'purge_test', now: () => now });
    await pool.query(createDpopReplayTableSql('purge_test'));
    await store.rememberOnce('a', later(10));
    await store.rememberOnce('b', later(20));
    now = later(10);
    expect(await store.purgeExpired()).toBe(1);
    const left = await pool.query('SELECT jti_key FROM purge_test');
    expect(left.rows).toEqual([{ jti_key: 'b' }]);
  });

  it('answers true to exactly one of many concurrent calls over separate connections', async () => {
    const store = new SqlDpopReplayStore(pool, { now: () => START });
    const answers = await Promise.all(Array.from({ length: 30 }, () => store.rememberOnce('race', later(66))));
    expect(answers.filter(Boolean)).toHaveLength(1);
  });

  it('keeps one key per scope when the table is partitioned by a column left to its default', async () => {
    await pool.query(
      `CREATE TABLE scoped_replay (
         scope text NOT NULL DEFAULT current_setting('test.scope'),
         jti_key text NOT NULL,
         expires_at timestamptz NOT NULL,
         PRIMARY KEY (scope, jti_key))`,
    );
    const client = await pool.connect();
    try {
      const store = new SqlDpopReplayStore(client, { table: 'scoped_replay', scopeColumn: 'scope', now: () => START });
      await client.query(`SELECT set_config('test.scope', 'a', false)`);
      expect(await store.rememberOnce('shared', later(66))).toBe(true);
      expect(await store.rememberOnce('shared', later(66))).toBe(false);
      await client.query(`SELECT set_config('test.scope', 'b', false)`);
      expect(await store.rememberOnce('shared', later(66))).toBe(true);
      // Forgetting in scope b leaves scope a's row held.
      await store.forget('shared');
      expect(await store.rememberOnce('shared', later(66))).toBe(true);
      await client.query(`SELECT set_config('test.scope', 'a', false)`);
      expect(await store.rememberOnce('shared', later(66))).toBe(false);
    } finally {
      client.release();
    }
    expect(() => new SqlDpopReplayStore(pool, { scopeColumn: 'a; DROP' })).toThrow(TypeError);
  });

  it('works with a schema-qualified table and refuses identifiers that are not plain names', async () => {
    await pool.query('CREATE SCHEMA IF NOT EXISTS dpop');
    await pool.query(createDpopReplayTableSql('dpop.jti_seen'));
    const store = new SqlDpopReplayStore(pool, { table: 'dpop.jti_seen', now: () => START });
    expect(await store.rememberOnce('x', later(1))).toBe(true);
    expect(await store.rememberOnce('x', later(1))).toBe(false);
    for (const table of ['dpop_replay; DROP TABLE x', 'Dpop', '"q"', 'a.b.c', '']) {
      expect(() => new SqlDpopReplayStore(pool, { table })).toThrow(TypeError);
    }
  });

  it('rejects a replayed proof across two verifier instances sharing the table', async () => {
    const key = await testKey();
    const now = new Date();
    const proof = await signProof(
      key.privateKey,
      { typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk },
      { jti: 'sql-replay', htm: 'POST', htu: 'https://as.example/token', iat: Math.floor(now.getTime() / 1000) },
    );
    const verify = () =>
      verifyDpopProof({
        dpopProof: proof,
        httpMethod: 'POST',
        httpUrl: 'https://as.example/token',
        replayStore: new SqlDpopReplayStore(pool),
        now,
      });
    await expect(verify()).resolves.toBeDefined();
    await expect(verify()).rejects.toMatchObject({ code: 'invalid_dpop_proof', reason: 'replayed_jti' });
  });
});
