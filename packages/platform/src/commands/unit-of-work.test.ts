import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditStore } from '../audit/audit-store.js';
import { stageAuditEvents } from '../audit/audit-pending.js';
import { RolePolicy } from '../auth/policy.js';
import type { Database, Sql } from '../db/index.js';
import { AppError } from '../errors/index.js';
import { SoftwareKeyManager } from '../keys/software-key-manager.js';
import { ManualClock } from '../observability/clock.js';
import { createLogger } from '../observability/logger.js';
import { Metrics } from '../observability/metrics.js';
import { DATABASE_KINDS, openTestDatabase, seedTenants, type TestDatabase } from '../testing/databases.js';
import { CommandBus } from './command-bus.js';
import { defineCommand, type CommandContext } from './command.js';

/**
 * Issue 13 §7: a command that answers an error has changed nothing, and a committed change always has its audit
 * event. The change and the event are staged in one unit of work; chaining follows, and when the database is lost
 * between the two the command still answers its result and the recovery chains the event later.
 */

/**
 * The database as the audit store sees it: cut on demand, or held until released (the command's own unit of work
 * still runs).
 */
function cuttable(db: Database): { db: Database; cut(on: boolean): void; hold(): () => void } {
  let down = false;
  let gate: Promise<void> | null = null;
  const refuse = () => Promise.reject(new AppError('service_unavailable', 'The database is unreachable.'));
  return {
    cut: (on) => void (down = on),
    hold() {
      let release: () => void = () => undefined;
      gate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        gate = null;
        release();
      };
    },
    db: new Proxy(db, {
      get(target, prop, receiver) {
        if (prop === 'withTenant' || prop === 'withTenantSession' || prop === 'withPlatform') {
          const real = Reflect.get(target, prop, receiver) as (...args: unknown[]) => Promise<unknown>;
          return async (...args: unknown[]) => {
            if (gate) await gate;
            return down ? refuse() : real.apply(target, args);
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }),
  };
}

const logger = createLogger({ level: 'silent', service: 'test' });

describe.each(DATABASE_KINDS)('command units of work and their audit events (%s)', (kind) => {
  let t: TestDatabase;
  let clock: ManualClock;
  let audit: AuditStore;
  let auditDb: ReturnType<typeof cuttable>;
  let bus: CommandBus;
  let keys: SoftwareKeyManager;
  let metrics: Metrics;

  const newBus = (audit: AuditStore, maxUnchainedEvents?: number) =>
    new CommandBus({
      policy: new RolePolicy({ tenantAdminRole: 'tenant-admin', platformAdminRole: 'platform-admin' }),
      audit,
      db: t.db,
      metrics,
      ...(maxUnchainedEvents === undefined ? {} : { maxUnchainedEvents }),
    });
  const newAudit = (db: Database) =>
    new AuditStore({ db, keys, metrics, clock, logger, signing: { enabled: false, checkpointEveryEvents: 100 } });

  const ctx = (tenantId: string): CommandContext => ({
    tenantId,
    principal: null,
    correlationId: randomUUID(),
    trace: null,
    log: logger,
  });

  /** A command that writes one webhook destination row (any tenant table would do), then may fail. */
  const createThing = defineCommand<{ id: string; failAfterWrite?: boolean }, { id: string }>({
    id: 'test.things.create',
    access: 'public',
    businessIds: (input, output) => ({ thingId: output?.id ?? input.id }),
    run: async (cmd, input) =>
      cmd.unitOfWork(async (sql) => {
        await sql.query(
          `INSERT INTO webhook_destinations (id, url, sealed_secret) VALUES ($1, 'https://x.test', 's')`,
          [input.id],
        );
        if (input.failAfterWrite) throw new AppError('invalid_request', 'refused after the write');
        return { id: input.id };
      }),
  });

  const rows = async (tenantId: string, id: string) =>
    (
      await t.db.withTenant(tenantId, (sql) =>
        sql.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_destinations WHERE id = $1', [id]),
      )
    ).rows[0]!.n;
  /** Still staged once the chaining this process queued has ended (the bus answers before it). */
  const staged = async (tenantId: string) => {
    await audit.settled(tenantId);
    return (
      await t.db.withTenant(tenantId, (sql) => sql.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_pending'))
    ).rows[0]!.n;
  };
  const events = async (tenantId: string) => (await audit.query({ tenantId, limit: 500 })).events;

  beforeAll(async () => {
    t = await openTestDatabase(kind);
    await seedTenants(t.db, 'uow-a', 'uow-b', 'uow-c', 'uow-d', 'uow-e', 'uow-f');
    clock = new ManualClock(new Date('2026-11-26T12:00:00Z'));
    metrics = new Metrics({ collectDefault: false });
    keys = new SoftwareKeyManager({ db: t.db, masterKey: Buffer.alloc(32, 7), metrics, clock });
    auditDb = cuttable(t.db);
    audit = newAudit(auditDb.db);
    bus = newBus(audit);
  });
  afterAll(async () => {
    await audit?.close();
    await t?.close();
  });

  it('commits the change with its event: the event is chained and nothing stays staged', async () => {
    const id = randomUUID();
    await expect(bus.execute(createThing, ctx('uow-a'), { id })).resolves.toEqual({ id });
    expect(await rows('uow-a', id)).toBe(1);
    expect(await staged('uow-a')).toBe(0);
    const chain = await events('uow-a');
    expect(chain).toHaveLength(1);
    expect(chain[0]).toMatchObject({ result: 'success', businessIds: { thingId: id } });
    expect(await audit.verify('uow-a')).toMatchObject({ ok: true, events: 1 });
  });

  it('a command that answers an error has changed nothing, and its failure is audited', async () => {
    const id = randomUUID();
    await expect(bus.execute(createThing, ctx('uow-b'), { id, failAfterWrite: true })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    expect(await rows('uow-b', id)).toBe(0);
    expect(await staged('uow-b')).toBe(0);
    expect((await events('uow-b')).map((e) => e.result)).toEqual(['failure']);
  });

  it('answers the committed change when the event cannot be chained, and the recovery chains it once', async () => {
    const id = randomUUID();
    auditDb.cut(true);
    try {
      // Before: the unit committed, the audit append failed, and the command answered 503 for a change it made.
      await expect(bus.execute(createThing, ctx('uow-c'), { id })).resolves.toEqual({ id });
      // The answer came before the chaining, which is attempted (and fails) while the database is still cut.
      await audit.settled('uow-c');
    } finally {
      auditDb.cut(false);
    }
    expect(await rows('uow-c', id)).toBe(1);
    expect(await staged('uow-c')).toBe(1);
    expect(await events('uow-c')).toHaveLength(0);
    // Not an orphan yet: the recovery leaves it to the process that staged it.
    expect(await audit.recoverPending(30)).toBe(0);
    clock.advance(31_000);
    expect(await audit.recoverPending(30)).toBe(1);
    expect(await audit.recoverPending(30)).toBe(0);
    const chain = await events('uow-c');
    expect(chain).toHaveLength(1);
    expect(chain[0]).toMatchObject({ result: 'success', businessIds: { thingId: id }, details: { recovered: true } });
    expect(await staged('uow-c')).toBe(0);
    expect(await audit.verify('uow-c')).toMatchObject({ ok: true, events: 1 });
  });

  it('an event the recovery chained already is not appended again by its late owner', async () => {
    const event = audit.prepare({ tenantId: 'uow-d', type: 'command.executed', result: 'success', commandId: 'x.y' });
    await t.db.withTenant('uow-d', (sql: Sql) => stageAuditEvents(sql, [event]));
    clock.advance(31_000);
    expect(await audit.recoverPending(30)).toBe(1);
    await audit.append(
      { tenantId: 'uow-d', type: 'command.executed', result: 'success', commandId: 'x.y', eventId: event.eventId },
      { staged: true },
    );
    // Both ways of appending: the head this store knows, and the locking one.
    const second = audit.prepare({ tenantId: 'uow-d', type: 'command.executed', result: 'success', commandId: 'x.z' });
    await t.db.withTenant('uow-d', (sql: Sql) => stageAuditEvents(sql, [second]));
    await audit.append({ tenantId: 'uow-d', type: 'marker', result: 'success' });
    await audit.append(
      { tenantId: 'uow-d', type: 'command.executed', result: 'success', commandId: 'x.z', eventId: second.eventId },
      { staged: true },
    );
    const chain = await events('uow-d');
    expect(chain.map((e) => e.eventId).filter((e) => e === event.eventId)).toHaveLength(1);
    expect(chain.map((e) => e.eventId).filter((e) => e === second.eventId)).toHaveLength(1);
    expect(chain).toHaveLength(3);
    expect(await staged('uow-d')).toBe(0);
    expect(await audit.verify('uow-d')).toMatchObject({ ok: true, events: 3 });
  });

  it('many concurrent units of work and a concurrent recovery leave one event each on a chain that verifies', async () => {
    const ids = Array.from({ length: 60 }, () => randomUUID());
    // A few orphans for the recovery to take while the commands run.
    const orphans = Array.from({ length: 5 }, (_, n) =>
      audit.prepare({ tenantId: 'uow-e', type: 'orphan', result: 'success', details: { n } }),
    );
    await t.db.withTenant('uow-e', (sql: Sql) => stageAuditEvents(sql, orphans));
    clock.advance(31_000);
    await Promise.all([
      ...ids.map((id, n) =>
        bus.execute(createThing, ctx('uow-e'), { id, failAfterWrite: n % 7 === 0 }).catch(() => null),
      ),
      audit.recoverPending(30),
    ]);
    const chain = await events('uow-e');
    expect(chain).toHaveLength(65);
    expect(new Set(chain.map((e) => e.eventId)).size).toBe(65);
    expect(chain.filter((e) => e.type === 'orphan')).toHaveLength(5);
    expect(chain.filter((e) => e.result === 'failure')).toHaveLength(ids.filter((_, n) => n % 7 === 0).length);
    expect(await staged('uow-e')).toBe(0);
    expect(await audit.verify('uow-e')).toMatchObject({ ok: true, events: 65 });
  });
  it('answers before the chaining, and waits for it again once more events than allowed wait (backpressure)', async () => {
    // The audit store of this bus writes through a gate that holds its statements until opened.
    const gated = cuttable(t.db);
    const open = gated.hold();
    const gatedAudit = newAudit(gated.db);
    const small = newBus(gatedAudit, 2);
    try {
      // Two writes answer while their events wait at the gate.
      for (let n = 0; n < 2; n++)
        await expect(small.execute(createThing, ctx('uow-f'), { id: randomUUID() })).resolves.toBeDefined();
      expect(gatedAudit.backlog('uow-f')).toBe(2);
      // The third finds three waiting: it answers only once its event is chained.
      let answered = false;
      const third = small.execute(createThing, ctx('uow-f'), { id: randomUUID() }).then(() => (answered = true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(answered).toBe(false);
      open();
      await third;
      expect(gatedAudit.backlog('uow-f')).toBe(0);
      expect((await gatedAudit.query({ tenantId: 'uow-f', limit: 10 })).events).toHaveLength(3);
    } finally {
      open();
      await gatedAudit.close();
    }
  });
});
