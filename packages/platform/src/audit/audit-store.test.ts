import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, PgliteDatabase, Sql } from '../db/index.js';
import { SoftwareKeyManager } from '../keys/software-key-manager.js';
import { signJwt } from '../keys/sign-jwt.js';
import { ManualClock } from '../observability/clock.js';
import { createLogger } from '../observability/logger.js';
import { Metrics } from '../observability/metrics.js';
import { TenantRegistry } from '../tenancy/index.js';
import { DATABASE_KINDS, openTestDatabase, seedTenants, type TestDatabase } from '../testing/databases.js';
import type { AuditEvent, AuditEventInput } from './audit-log.js';
import { AuditStore, auditKeyAlias, type AuditSigningOptions } from './audit-store.js';
import { GENESIS_HASH, eventHash } from './canonical.js';
import { runAuditVerify } from './verify-cli.js';

const SIGNING_OFF: AuditSigningOptions = { enabled: false, checkpointEveryEvents: 100 };

/** Runs a statement as the database superuser: the only way past the grants that keep the store append-only. */
async function asSuperuser(t: TestDatabase, text: string, params: unknown[] = []): Promise<void> {
  if (t.url === undefined) {
    await (t.db as unknown as PgliteDatabase).pglite.query(text, params);
    return;
  }
  const client = new pg.Client({ connectionString: t.url });
  await client.connect();
  try {
    await client.query(text, params);
  } finally {
    await client.end();
  }
}

/** A real database that counts the tenant transactions opened through it, and can hold them at a gate. */
class CountingDatabase {
  tenantUnits = 0;
  /** Units that were one statement outside a transaction (withTenantSession), also counted in tenantUnits. */
  sessionUnits = 0;
  private gate: Promise<void> | null = null;
  private open: (() => void) | null = null;
  constructor(readonly inner: Database) {}
  close() {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }
  release() {
    this.open?.();
    this.gate = null;
  }
  asDatabase(): Database {
    return new Proxy(this.inner, {
      get: (target, prop, receiver) => {
        if (prop === 'withTenant' || prop === 'withTenantSession') {
          return async <T>(tenantId: string, fn: (sql: Sql) => Promise<T>) => {
            this.tenantUnits += 1;
            if (prop === 'withTenantSession') this.sessionUnits += 1;
            if (this.gate) await this.gate;
            return prop === 'withTenant' ? target.withTenant(tenantId, fn) : target.withTenantSession(tenantId, fn);
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}

const input = (tenantId: string, n: number, extra: Partial<AuditEventInput> = {}): AuditEventInput => ({
  tenantId,
  type: 'command.executed',
  commandId: 'test.things.create',
  principalId: `user-${n % 3}`,
  result: 'success',
  correlationId: `corr-${n}`,
  businessIds: { thingId: `thing-${n}` },
  details: { n },
  ...extra,
});

describe.each(DATABASE_KINDS)('AuditStore (%s)', (kind) => {
  let t: TestDatabase;
  let keys: SoftwareKeyManager;
  let clock: ManualClock;
  let metrics: Metrics;
  const stores: AuditStore[] = [];
  const logger = createLogger({ level: 'silent', service: 'test' });

  function newStore(options: { signing?: AuditSigningOptions; db?: Database } = {}): AuditStore {
    const store = new AuditStore({
      db: options.db ?? t.db,
      keys,
      metrics,
      clock,
      logger,
      signing: options.signing ?? SIGNING_OFF,
      // Small verify batches, so that every chain below is streamed over several round trips.
      verifyBatchEvents: 16,
    });
    stores.push(store);
    return store;
  }

  async function chain(tenantId: string): Promise<AuditEvent[]> {
    const page = await newStore().query({ tenantId, limit: 500 });
    return page.events.sort((a, b) => a.seq - b.seq);
  }

  async function appendMany(store: AuditStore, tenantId: string, count: number, from = 0): Promise<void> {
    await Promise.all(Array.from({ length: count }, (_, i) => store.append(input(tenantId, from + i))));
  }

  beforeAll(async () => {
    t = await openTestDatabase(kind);
    await seedTenants(
      t.db,
      ...[
        'alpha',
        'beta',
        'tamper',
        'tamper-hash',
        'tamper-prev',
        'gap',
        'tail',
        'signed',
        'sig-bad',
        'cp-hash',
        'iso-a',
        'iso-b',
      ],
      ...[
        'grants',
        'q-one',
        'q-two',
        'replicas',
        'known-head',
        'batching',
        'gated',
        'settle',
        'odd',
        'failing',
        'cli-ok',
        'cli-bad',
        'cp-foreign',
      ],
    );
    clock = new ManualClock(new Date('2040-01-01T00:00:00Z'));
    metrics = new Metrics({ collectDefault: false });
    keys = new SoftwareKeyManager({ db: t.db, masterKey: randomBytes(32), metrics, clock });
  });

  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await t?.close();
  });

  it('appends 200 events concurrently across two tenants into gapless chains that verify', async () => {
    const store = newStore();
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.append(input(i % 2 === 0 ? 'alpha' : 'beta', i))));
    for (const tenantId of ['alpha', 'beta']) {
      const events = await chain(tenantId);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(events.every((e) => e.tenantId === tenantId)).toBe(true);
      let prev = GENESIS_HASH;
      for (const e of events) {
        expect(e.prevHash).toBe(prev);
        expect(e.hash).toBe(eventHash(prev, e));
        prev = e.hash;
      }
      const ns = events.map((e) => e.details.n as number).sort((a, b) => a - b);
      expect(ns).toEqual(Array.from({ length: 100 }, (_, i) => 2 * i + (tenantId === 'alpha' ? 0 : 1)));
      expect(await store.verify(tenantId)).toEqual({ ok: true, events: 100, checkpoints: 0 });
    }
    const appended = (await metrics.auditAppends.get()).values.find((v) => v.labels.result === 'success')?.value;
    expect(appended).toBeGreaterThanOrEqual(200);
  });

  it('stores every field as given and the hash covers it', async () => {
    const store = newStore();
    await store.append({
      tenantId: 'odd',
      type: 'gdpr_erasure',
      commandId: 'bridge.external.erase',
      principalId: 'client-1',
      result: 'failure',
      correlationId: 'c-1',
      traceId: '0af7651916cd43dd8448eb211c80319c',
      businessIds: { identityId: 'id-1' },
      details: { nested: { b: [1, 2.5, true, null], a: 'x' }, nul: 'a\u0000b' },
      occurredAt: new Date('2039-06-01T12:00:00.123Z'),
    });
    const [event] = await chain('odd');
    expect(event).toMatchObject({
      tenantId: 'odd',
      seq: 1,
      occurredAt: '2039-06-01T12:00:00.123Z',
      type: 'gdpr_erasure',
      commandId: 'bridge.external.erase',
      principalId: 'client-1',
      result: 'failure',
      correlationId: 'c-1',
      traceId: '0af7651916cd43dd8448eb211c80319c',
      businessIds: { identityId: 'id-1' },
      // NUL cannot be stored: it is replaced, and the hash covers the stored value.
      details: { nested: { a: 'x', b: [1, 2.5, true, null] }, nul: 'a\uFFFDb' },
      prevHash: GENESIS_HASH,
    });
    expect(event!.eventId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await store.verify('odd')).toEqual({ ok: true, events: 1, checkpoints: 0 });
  });

  it('writes the events appended in one tick in one transaction, and those arriving during a flush in the next', async () => {
    const counting = new CountingDatabase(t.db);
    const store = newStore({ db: counting.asDatabase() });
    await appendMany(store, 'batching', 50);
    expect(counting.tenantUnits).toBe(1);

    const gated = new CountingDatabase(t.db);
    const held = newStore({ db: gated.asDatabase() });
    gated.close();
    const first = held.append(input('gated', 0));
    // Let the first flush start and stop at the gate; then 30 more arrive while it is in flight.
    await Promise.resolve();
    await Promise.resolve();
    expect(gated.tenantUnits).toBe(1);
    const more = Array.from({ length: 30 }, (_, i) => held.append(input('gated', i + 1)));
    gated.release();
    await Promise.all([first, ...more]);
    expect(gated.tenantUnits).toBe(2);
    expect((await chain('gated')).map((e) => e.seq)).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
  });

  it('lets a read wait for the events queued before it (settled), not for those queued after', async () => {
    const gated = new CountingDatabase(t.db);
    const held = newStore({ db: gated.asDatabase() });
    gated.close();
    const order: string[] = [];
    const first = held.append(input('settle', 0)).then(() => order.push('first'));
    // The first flush is in flight, held at the gate.
    await Promise.resolve();
    await Promise.resolve();
    const read = held.query({ tenantId: 'settle', limit: 10 });
    const settled = held.settled('settle').then(() => order.push('settled'));
    const later = held.append(input('settle', 1)).then(() => order.push('later'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual([]);
    gated.release();
    await Promise.all([first, settled, later]);
    // The barrier ended with the batch it waited for; the event queued after it travelled in the next one.
    expect(order).toEqual(['first', 'settled', 'later']);
    expect((await read).events.map((e) => e.seq)).toContain(1);
    // Nothing queued: nothing to wait for.
    await held.settled();
    await held.settled('nobody');
  });

  it('chains later batches onto the head it wrote last in one statement, and takes the lock when another replica moved it', async () => {
    const counting = new CountingDatabase(t.db);
    const a = newStore({ db: counting.asDatabase() });
    const b = newStore();
    await appendMany(a, 'known-head', 5, 0);
    expect([counting.tenantUnits, counting.sessionUnits]).toEqual([1, 0]);
    await appendMany(a, 'known-head', 5, 10);
    await appendMany(a, 'known-head', 5, 20);
    expect([counting.tenantUnits, counting.sessionUnits]).toEqual([3, 2]);
    // Another replica appends: a's next statement finds the head moved, writes nothing, and a locks and re-reads.
    await appendMany(b, 'known-head', 5, 30);
    await appendMany(a, 'known-head', 5, 40);
    expect([counting.tenantUnits, counting.sessionUnits]).toEqual([5, 3]);
    const events = await chain('known-head');
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(events.map((e) => e.correlationId)).toEqual(
      [0, 10, 20, 30, 40].flatMap((base) => Array.from({ length: 5 }, (_, i) => `corr-${base + i}`)),
    );
    expect(await a.verify('known-head')).toEqual({ ok: true, events: 25, checkpoints: 0 });
  });

  it('keeps one chain when two stores (replicas) append to the same tenant at once', async () => {
    const a = newStore();
    const b = newStore();
    await Promise.all([
      appendMany(a, 'replicas', 60, 0),
      appendMany(b, 'replicas', 60, 1000),
      appendMany(a, 'replicas', 20, 2000),
    ]);
    const events = await chain('replicas');
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 140 }, (_, i) => i + 1));
    expect(await b.verify('replicas')).toEqual({ ok: true, events: 140, checkpoints: 0 });
  });

  it('names the event whose stored data had one byte flipped', async () => {
    const store = newStore();
    await appendMany(store, 'tamper', 60);
    const victim = (await chain('tamper'))[36]!;
    // 'c' XOR 1 = 'b': one bit of one byte of the event type.
    await asSuperuser(
      t,
      `UPDATE audit_events SET event_type = overlay(event_type placing chr(ascii(substr(event_type, 1, 1)) # 1) from 1 for 1)
        WHERE tenant_id = 'tamper' AND seq = $1`,
      [victim.seq],
    );
    expect((await chain('tamper'))[36]!.type).toBe('bommand.executed');
    expect(await store.verify('tamper')).toEqual({
      ok: false,
      firstBroken: { seq: 37, eventId: victim.eventId, reason: 'hash_mismatch' },
    });
  });

  it('names the event whose stored hash or prev_hash was altered', async () => {
    const store = newStore();
    await appendMany(store, 'tamper-hash', 30);
    await appendMany(store, 'tamper-prev', 30);
    const flipHex = (column: string) =>
      `${column} = overlay(${column} placing CASE WHEN substr(${column}, 10, 1) = '0' THEN '1' ELSE '0' END from 10 for 1)`;
    await asSuperuser(t, `UPDATE audit_events SET ${flipHex('hash')} WHERE tenant_id = 'tamper-hash' AND seq = 12`);
    await asSuperuser(
      t,
      `UPDATE audit_events SET ${flipHex('prev_hash')} WHERE tenant_id = 'tamper-prev' AND seq = 20`,
    );
    const hashVictim = (await chain('tamper-hash'))[11]!;
    const prevVictim = (await chain('tamper-prev'))[19]!;
    expect(await store.verify('tamper-hash')).toEqual({
      ok: false,
      firstBroken: { seq: 12, eventId: hashVictim.eventId, reason: 'hash_mismatch' },
    });
    expect(await store.verify('tamper-prev')).toEqual({
      ok: false,
      firstBroken: { seq: 20, eventId: prevVictim.eventId, reason: 'prev_hash_mismatch' },
    });
  });

  it('names a sequence gap where an event was deleted, and a truncated tail', async () => {
    const store = newStore();
    await appendMany(store, 'gap', 40);
    await appendMany(store, 'tail', 40);
    const after = (await chain('gap'))[20]!;
    await asSuperuser(t, `DELETE FROM audit_events WHERE tenant_id = 'gap' AND seq = 20`);
    expect(await store.verify('gap')).toEqual({
      ok: false,
      firstBroken: { seq: 21, eventId: after.eventId, reason: 'sequence_gap', expectedSeq: 20 },
    });
    await asSuperuser(t, `DELETE FROM audit_events WHERE tenant_id = 'tail' AND seq > 37`);
    expect(await store.verify('tail')).toEqual({
      ok: false,
      firstBroken: { seq: 38, eventId: null, reason: 'sequence_gap', expectedSeq: 38 },
    });
  });

  it('writes a signed checkpoint every N events, and they verify', async () => {
    const store = newStore({ signing: { enabled: true, checkpointEveryEvents: 10 } });
    await appendMany(store, 'signed', 25);
    await appendMany(store, 'signed', 10, 25);
    await store.whenIdle();
    const rows = await t.db.withTenant('signed', (sql) =>
      sql.query<{ seq: number; hash: string; signature: string; kid: string }>(
        'SELECT seq, hash, signature, kid FROM audit_checkpoints ORDER BY seq',
      ),
    );
    expect(rows.rows.map((r) => Number(r.seq))).toEqual([10, 20, 30]);
    const events = await chain('signed');
    const jwk = await keys.publicJwk(auditKeyAlias('signed'));
    for (const row of rows.rows) {
      expect(row.hash).toBe(events[Number(row.seq) - 1]!.hash);
      const { payload, protectedHeader } = await compactVerify(row.signature, await importJWK(jwk, 'ES256'));
      expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: row.kid, typ: 'audit-checkpoint+jwt' });
      expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({
        tenant: 'signed',
        seq: Number(row.seq),
        hash: row.hash,
        iat: Math.floor(clock.now().getTime() / 1000),
      });
    }
    expect(await store.verify('signed')).toEqual({ ok: true, events: 35, checkpoints: 3 });

    const onDemand = await store.checkpoint('signed');
    expect(onDemand).toMatchObject({ tenantId: 'signed', seq: 35, hash: events[34]!.hash, kid: jwk.kid });
    expect(decodeProtectedHeader(onDemand!.signature).kid).toBe(jwk.kid);
    expect(await store.verify('signed')).toEqual({ ok: true, events: 35, checkpoints: 4 });
    expect(await newStore().checkpoint('iso-b')).toBeNull();
  });

  it('detects a checkpoint whose signature had one byte changed', async () => {
    const store = newStore({ signing: { enabled: true, checkpointEveryEvents: 10 } });
    await appendMany(store, 'sig-bad', 30);
    await store.whenIdle();
    const row = (
      await t.db.withTenant('sig-bad', (sql) =>
        sql.query<{ signature: string }>('SELECT signature FROM audit_checkpoints WHERE seq = 20'),
      )
    ).rows[0]!;
    // A character well inside the signature segment: the last one may only carry padding bits.
    const i = row.signature.length - 20;
    const tampered = row.signature.slice(0, i) + (row.signature[i] === 'A' ? 'B' : 'A') + row.signature.slice(i + 1);
    await asSuperuser(t, `UPDATE audit_checkpoints SET signature = $1 WHERE tenant_id = 'sig-bad' AND seq = 20`, [
      tampered,
    ]);
    const at20 = (await chain('sig-bad'))[19]!;
    expect(await store.verify('sig-bad')).toEqual({
      ok: false,
      firstBroken: { seq: 20, eventId: at20.eventId, reason: 'checkpoint_signature_invalid' },
    });
  });

  it('refuses a checkpoint signed with a key other than the tenant’s audit key', async () => {
    const store = newStore({ signing: { enabled: true, checkpointEveryEvents: 10 } });
    await appendMany(store, 'cp-foreign', 10);
    await store.whenIdle();
    const at10 = (await chain('cp-foreign'))[9]!;
    // A genuine signature over the right statement, but by another tenant's audit key.
    await keys.ensure(auditKeyAlias('iso-a'), 'ES256');
    const foreign = await signJwt(
      keys,
      auditKeyAlias('iso-a'),
      { tenant: 'cp-foreign', seq: 10, hash: at10.hash, iat: 0 },
      { typ: 'audit-checkpoint+jwt' },
    );
    const kid = String(decodeProtectedHeader(foreign).kid);
    await asSuperuser(
      t,
      `UPDATE audit_checkpoints SET signature = $1, kid = $2 WHERE tenant_id = 'cp-foreign' AND seq = 10`,
      [foreign, kid],
    );
    expect(await store.verify('cp-foreign')).toEqual({
      ok: false,
      firstBroken: { seq: 10, eventId: at10.eventId, reason: 'checkpoint_signature_invalid' },
    });
  });

  it('detects a checkpoint whose hash was changed', async () => {
    const store = newStore({ signing: { enabled: true, checkpointEveryEvents: 10 } });
    await appendMany(store, 'cp-hash', 20);
    await store.whenIdle();
    await asSuperuser(
      t,
      `UPDATE audit_checkpoints SET hash = overlay(hash placing CASE WHEN substr(hash, 1, 1) = 'f' THEN 'e' ELSE 'f' END from 1 for 1)
        WHERE tenant_id = 'cp-hash' AND seq = 10`,
    );
    const at10 = (await chain('cp-hash'))[9]!;
    expect(await store.verify('cp-hash')).toEqual({
      ok: false,
      firstBroken: { seq: 10, eventId: at10.eventId, reason: 'checkpoint_hash_mismatch' },
    });
  });

  it('pages through filtered results, covering every event exactly once in order', async () => {
    const store = newStore();
    const window = { from: new Date('2041-01-01T00:00:00Z'), to: new Date('2041-02-01T00:00:00Z') };
    clock.set(new Date('2041-01-01T00:00:00Z'));
    const expected: {
      tenantId: string;
      n: number;
      at: string;
      principal: string;
      command: string;
      result: string;
      type: string;
    }[] = [];
    for (let i = 0; i < 45; i++) {
      const tenantId = i % 3 === 0 ? 'q-two' : 'q-one';
      const result = i % 5 === 0 ? 'denied' : i % 4 === 0 ? 'failure' : 'success';
      const type = result === 'denied' ? 'authorization.denied' : 'command.executed';
      const command = i % 2 === 0 ? 'q.things.create' : 'q.things.list';
      // Several events share a timestamp: the tenant and sequence number break the tie.
      await store.append(input(tenantId, i, { result, type, commandId: command, principalId: `p-${i % 4}` }));
      expected.push({ tenantId, n: i, at: clock.now().toISOString(), principal: `p-${i % 4}`, command, result, type });
      if (i % 4 === 3) clock.advance(60);
    }
    clock.set(new Date('2041-03-01T00:00:00Z'));
    await store.append(input('q-one', 999));

    async function all(filter: Parameters<AuditStore['query']>[0]): Promise<AuditEvent[]> {
      const out: AuditEvent[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 100; pages++) {
        const page = await store.query({ ...filter, cursor, limit: 7 });
        expect(page.events.length).toBeLessThanOrEqual(7);
        out.push(...page.events);
        if (page.nextCursor === null) return out;
        expect(page.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
        cursor = page.nextCursor;
      }
      throw new Error('pagination did not end');
    }
    const sortKey = (e: { at: string; tenantId: string; seq: number }) =>
      `${e.at}|${e.tenantId}|${String(e.seq).padStart(6, '0')}`;

    const everything = await all(window);
    expect(everything).toHaveLength(45);
    expect(new Set(everything.map((e) => e.eventId)).size).toBe(45);
    const keys = everything.map((e) => sortKey({ at: e.occurredAt, tenantId: e.tenantId, seq: e.seq }));
    expect(keys).toEqual([...keys].sort());
    expect(everything.map((e) => e.details.n).sort((a, b) => (a as number) - (b as number))).toEqual(
      expected.map((e) => e.n),
    );

    const check = async (
      filter: Parameters<AuditStore['query']>[0],
      keep: (e: (typeof expected)[number]) => boolean,
    ) => {
      const got = await all({ ...window, ...filter });
      expect(got.map((e) => e.details.n).sort((a, b) => (a as number) - (b as number))).toEqual(
        expected.filter(keep).map((e) => e.n),
      );
    };
    await check({ tenantId: 'q-one' }, (e) => e.tenantId === 'q-one');
    await check({ principalId: 'p-1' }, (e) => e.principal === 'p-1');
    await check({ commandId: 'q.things.list' }, (e) => e.command === 'q.things.list');
    await check({ type: 'authorization.denied' }, (e) => e.type === 'authorization.denied');
    await check({ result: 'failure' }, (e) => e.result === 'failure');
    await check(
      { tenantId: 'q-two', result: 'success', principalId: 'p-0' },
      (e) => e.tenantId === 'q-two' && e.result === 'success' && e.principal === 'p-0',
    );
    await check(
      { from: new Date('2041-01-01T00:02:00Z'), to: new Date('2041-01-01T00:05:00Z') },
      (e) => e.at >= '2041-01-01T00:02:00.000Z' && e.at < '2041-01-01T00:05:00.000Z',
    );

    // Without a window the later event shows too; a limit above the maximum is capped.
    const tenantOne = await store.query({ tenantId: 'q-one', limit: 10_000 });
    expect(tenantOne.events).toHaveLength(31);
    expect(tenantOne.nextCursor).toBeNull();
    await expect(store.query({ cursor: 'not-a-cursor' })).rejects.toMatchObject({
      code: 'invalid_request',
      field: 'cursor',
    });
    await expect(store.query({ tenantId: 'Not A Tenant' })).rejects.toMatchObject({
      code: 'invalid_request',
      field: 'tenant',
    });
  });

  it('confines tenant-scoped reads of the audit tables to the tenant', async () => {
    const store = newStore({ signing: { enabled: true, checkpointEveryEvents: 5 } });
    await appendMany(store, 'iso-a', 5);
    await store.whenIdle();
    for (const table of ['audit_events', 'audit_heads', 'audit_checkpoints']) {
      const fromA = await t.db.withTenant('iso-a', (sql) =>
        sql.query<{ tenant_id: string }>(`SELECT tenant_id FROM ${table}`),
      );
      expect(fromA.rows.length).toBeGreaterThan(0);
      expect(fromA.rows.every((r) => r.tenant_id === 'iso-a')).toBe(true);
      const fromB = await t.db.withTenant('iso-b', (sql) => sql.query(`SELECT tenant_id FROM ${table}`));
      expect(fromB.rows).toEqual([]);
    }
    expect((await store.query({ tenantId: 'iso-b' })).events).toEqual([]);
  });

  it('refuses UPDATE and DELETE of audit events and checkpoints to the runtime role', async () => {
    const store = newStore({ signing: { enabled: true, checkpointEveryEvents: 5 } });
    await appendMany(store, 'grants', 10);
    await store.whenIdle();
    const denied = { cause: { code: '42501' } };
    await expect(
      t.db.withTenant('grants', (sql) => sql.query(`UPDATE audit_events SET event_type = 'x' WHERE seq = 3`)),
    ).rejects.toMatchObject(denied);
    await expect(
      t.db.withTenant('grants', (sql) => sql.query(`DELETE FROM audit_events WHERE seq = 3`)),
    ).rejects.toMatchObject(denied);
    await expect(
      t.db.withTenant('grants', (sql) => sql.query(`UPDATE audit_checkpoints SET hash = 'x'`)),
    ).rejects.toMatchObject(denied);
    await expect(t.db.withPlatform((sql) => sql.query(`DELETE FROM audit_checkpoints`))).rejects.toMatchObject(denied);
    expect(await store.verify('grants')).toEqual({ ok: true, events: 10, checkpoints: 2 });
  });

  it('rejects the appends of a failed batch only, and refuses appends after close', async () => {
    const store = newStore();
    const results = await Promise.allSettled([
      store.append(input('no-such-tenant', 1)),
      store.append(input('no-such-tenant', 2)),
      store.append(input('failing', 3)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    await expect(store.append(input('Bad Tenant', 1))).rejects.toThrow(/invalid tenant id/);
    await expect(store.append({ ...input('failing', 1), result: 'maybe' as never })).rejects.toThrow(
      /invalid audit result/,
    );
    const failed = (await metrics.auditAppends.get()).values.find((v) => v.labels.result === 'failure')?.value;
    expect(failed).toBeGreaterThanOrEqual(2);
    await store.close();
    await expect(store.append(input('failing', 4))).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(await newStore().verify('failing')).toEqual({ ok: true, events: 1, checkpoints: 0 });
  });

  it('runAuditVerify verifies every tenant of the registry and names the broken one', async () => {
    const store = newStore();
    await appendMany(store, 'cli-ok', 5);
    await appendMany(store, 'cli-bad', 5);
    await asSuperuser(t, `UPDATE audit_events SET details = '{"n": 99}' WHERE tenant_id = 'cli-bad' AND seq = 2`);
    const tenants = new TenantRegistry(t.db);
    await tenants.load();
    const all = await runAuditVerify({ audit: store, tenants });
    expect(all.map((r) => r.tenantId)).toEqual(
      tenants
        .list()
        .map((x) => x.id)
        .sort(),
    );
    const byTenant = new Map(all.map((r) => [r.tenantId, r.result]));
    expect(byTenant.get('cli-ok')).toEqual({ ok: true, events: 5, checkpoints: 0 });
    expect(byTenant.get('cli-bad')).toMatchObject({ ok: false, firstBroken: { seq: 2, reason: 'hash_mismatch' } });
    expect(await runAuditVerify({ audit: store, tenants }, ['cli-ok'])).toEqual([
      { tenantId: 'cli-ok', result: { ok: true, events: 5, checkpoints: 0 } },
    ]);
  });
});
