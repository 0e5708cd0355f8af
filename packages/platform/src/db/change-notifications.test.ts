import { Transform } from 'node:stream';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS, openTestDatabase, seedTenants, TEST_PG_ADMIN_URL } from '../testing/databases.js';
import type { ChangeHandlers } from './change-notifications.js';
import { startTcpProxy } from '../testing/tcp-proxy.js';
import { openDatabase } from './open-database.js';
import { LISTENER_APPLICATION_NAME } from './postgres-notifications.js';

/** Waits until `check` holds, polling; fails after `timeoutMs`. */
async function eventually(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A subscriber that records what it is told. */
function recorder(): ChangeHandlers & { payloads: string[]; resets: number } {
  const r = {
    payloads: [] as string[],
    resets: 0,
    changed: (payload: string) => void r.payloads.push(payload),
    reset: () => void r.resets++,
  };
  return r;
}

describe.each(DATABASE_KINDS)('change notifications (%s)', (kind) => {
  it('delivers what a transaction publishes once it commits, nothing of one that rolls back', async () => {
    const t = await openTestDatabase(kind);
    try {
      await seedTenants(t.db, 'alpha');
      const seen = recorder();
      const subscription = t.db.changes.subscribe('things_changed', seen);
      await eventually(() => subscription.listening);
      expect(seen.resets).toBe(1);
      expect(t.db.changes.isListening('things_changed')).toBe(true);

      await t.db.withTenant('alpha', async (sql) => {
        await sql.query(`SELECT pg_notify('things_changed', 'committed')`);
        // Not before the commit.
        expect(seen.payloads).toEqual([]);
      });
      await expect(
        t.db.withTenant('alpha', async (sql) => {
          await sql.query(`SELECT pg_notify('things_changed', 'rolled back')`);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      await t.db.withTenant('alpha', (sql) => sql.query(`SELECT pg_notify('things_changed', 'second')`));
      await eventually(() => seen.payloads.length === 2);
      expect(seen.payloads).toEqual(['committed', 'second']);

      t.db.changes.announce('things_changed', 'local');
      expect(seen.payloads.at(-1)).toBe('local');
      await subscription.close();
      expect(subscription.listening).toBe(false);
    } finally {
      await t.close();
    }
  });
});

describe('change notifications on PostgreSQL across connections', () => {
  it('stops listening when its connection is lost, and listens again (with a reset) once reconnected', async () => {
    const writer = await openTestDatabase('postgres');
    // A second process's view of the same database: its own pool and its own listener.
    const replica = await openDatabase({ url: writer.url!, migrations: [], migrate: false });
    try {
      const seen = recorder();
      const subscription = replica.changes.subscribe('things_changed', seen);
      await eventually(() => subscription.listening);
      await writer.db.withPlatform((sql) => sql.query(`SELECT pg_notify('things_changed', 'one')`));
      await eventually(() => seen.payloads.includes('one'));

      const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
      await admin.connect();
      try {
        await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = $2`,
          [LISTENER_APPLICATION_NAME, new URL(writer.url!).pathname.slice(1)],
        );
      } finally {
        await admin.end();
      }
      await eventually(() => !subscription.listening);
      expect(seen.resets).toBe(2);
      await eventually(() => subscription.listening);
      expect(seen.resets).toBe(3);
      await writer.db.withPlatform((sql) => sql.query(`SELECT pg_notify('things_changed', 'two')`));
      await eventually(() => seen.payloads.includes('two'));
    } finally {
      await replica.close();
      await writer.close();
    }
  });
});

describe('change notifications on PostgreSQL behind a silent network failure', () => {
  it('stops listening within the heartbeat when its connection stops answering', async () => {
    const t = await openTestDatabase('postgres');
    const target = new URL(t.url!);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(t.url!);
    viaProxy.port = String(proxy.port);
    const replica = await openDatabase({ url: viaProxy.toString(), migrations: [], migrate: false });
    try {
      const seen = recorder();
      const subscription = replica.changes.subscribe('things_changed', seen);
      await eventually(() => subscription.listening);
      proxy.stall();
      // The heartbeat (1 s) times out after another second: listening ends, well before 5 s.
      await eventually(() => !subscription.listening, 5000);
      expect(seen.resets).toBe(2);
      // A new connection through the proxy works: the listener comes back, and what is published reaches it.
      await eventually(() => subscription.listening, 10_000);
      await t.db.withPlatform((sql) => sql.query(`SELECT pg_notify('things_changed', 'after')`));
      await eventually(() => seen.payloads.includes('after'));
    } finally {
      await replica.close();
      await proxy.close();
      await t.close();
    }
  }, 30_000);
});

/**
 * The PostgreSQL backend-to-client stream without its NotificationResponse messages (type 'A'): every message is a
 * type byte and a 32-bit length that counts itself, so the stream is cut into messages and those are left out.
 */
function withoutNotifications(): Transform {
  let pending = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      pending = Buffer.concat([pending, chunk]);
      const kept: Buffer[] = [];
      let at = 0;
      while (pending.length - at >= 5) {
        const size = 1 + pending.readUInt32BE(at + 1);
        if (pending.length - at < size) break;
        if (pending[at] !== 0x41) kept.push(pending.subarray(at, at + size));
        at += size;
      }
      pending = pending.subarray(at);
      done(null, Buffer.concat(kept));
    },
  });
}

describe('change notifications on PostgreSQL through a path that answers queries but delivers no notification', () => {
  it('never counts as listening (as behind a transaction-pooling PgBouncer): the heartbeat must come back', async () => {
    const t = await openTestDatabase('postgres');
    const target = new URL(t.url!);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432), {
      fromUpstream: withoutNotifications,
    });
    const viaProxy = new URL(t.url!);
    viaProxy.port = String(proxy.port);
    const replica = await openDatabase({ url: viaProxy.toString(), migrations: [], migrate: false });
    try {
      // Queries through the path work.
      expect((await replica.withPlatform((sql) => sql.query<{ n: number }>('SELECT 1 AS n'))).rows[0]!.n).toBe(1);
      const seen = recorder();
      const subscription = replica.changes.subscribe('things_changed', seen);
      // Several connection attempts (each LISTENs, then waits a heartbeat of 1 s that never comes back).
      await new Promise((resolve) => setTimeout(resolve, 3500));
      expect(subscription.listening).toBe(false);
      expect(replica.changes.isListening('things_changed')).toBe(false);
      expect(seen.resets).toBe(0);
    } finally {
      await replica.close();
      await proxy.close();
      await t.close();
    }
  }, 30_000);
});
