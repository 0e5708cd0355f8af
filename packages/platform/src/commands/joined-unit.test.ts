import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditStore } from '../audit/audit-store.js';
import { RolePolicy } from '../auth/policy.js';
import { AppError } from '../errors/index.js';
import { SoftwareKeyManager } from '../keys/software-key-manager.js';
import { ManualClock } from '../observability/clock.js';
import { createLogger } from '../observability/logger.js';
import { Metrics } from '../observability/metrics.js';
import { DATABASE_KINDS, openTestDatabase, seedTenants, type TestDatabase } from '../testing/databases.js';
import { CommandBus } from './command-bus.js';
import { defineCommand, type CommandContext, type JoinedUnit } from './command.js';

/**
 * Issue 13 §7 across contexts: a command that runs another context's command in its own unit of work (the
 * OpenID4VCI issuer's offer starts a pipeline session and creates the token service's grant) commits both changes
 * and both audit events together, or neither. On the embedded engine the joined command must not open a
 * transaction of its own (one connection: it would wait for the caller's forever).
 */

const logger = createLogger({ level: 'silent', service: 'test' });

describe.each(DATABASE_KINDS)('commands joining a caller unit of work (%s)', (kind) => {
  let t: TestDatabase;
  let audit: AuditStore;
  let bus: CommandBus;

  const ctx = (tenantId: string, unit?: JoinedUnit, roles: string[] = []): CommandContext => ({
    tenantId,
    principal: { id: 'p', kind: 'user', tenantId, roles, scopes: [], clientId: null, issuer: null },
    correlationId: randomUUID(),
    trace: null,
    log: logger,
    unit,
  });

  const insert = (id: string, url: string) =>
    `INSERT INTO webhook_destinations (id, url, sealed_secret) VALUES ('${id}', '${url}', 's')`;

  /** The other context's command: one row, in whatever unit it is given. */
  const createInner = defineCommand<{ id: string }, { id: string }>({
    id: 'test.inner.create',
    access: 'public',
    businessIds: (input) => ({ innerId: input.id }),
    run: (cmd, input) =>
      cmd.unitOfWork(async (sql) => {
        await sql.query(insert(input.id, 'https://inner.test'));
        return { id: input.id };
      }),
  });
  /** A read of the other context (no unit of work of its own): its event is appended, not staged by a unit. */
  const readInner = defineCommand<{ id: string }, number>({
    id: 'test.inner.read',
    access: 'public',
    run: async () => 1,
  });
  /** A command the caller's principal may not run: its denial is audited in the caller's unit. */
  const adminOnly = defineCommand<Record<string, never>, void>({
    id: 'test.inner.admin',
    access: 'admin',
    run: async () => undefined,
  });

  /** The caller: its own row, then the inner commands in its unit, then maybe a failure. */
  const createOuter = defineCommand<
    { id: string; innerId: string; failAfter?: boolean; tryAdmin?: boolean; afterCommit?: () => Promise<void> },
    { id: string }
  >({
    id: 'test.outer.create',
    access: 'public',
    run: (cmd, input) =>
      cmd.unitOfWork(async (sql, unit) => {
        await sql.query(insert(input.id, 'https://outer.test'));
        await bus.execute(createInner, ctx(cmd.tenantId, unit), { id: input.innerId });
        await bus.execute(readInner, ctx(cmd.tenantId, unit), { id: input.innerId });
        if (input.tryAdmin) await bus.execute(adminOnly, ctx(cmd.tenantId, unit), {}).catch(() => undefined);
        if (input.afterCommit) unit.afterCommit(input.afterCommit);
        if (input.failAfter) throw new AppError('invalid_request', 'refused after both writes');
        return { id: input.id };
      }),
  });

  const rows = async (tenantId: string, ...ids: string[]) =>
    (
      await t.db.withTenant(tenantId, (sql) =>
        sql.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_destinations WHERE id = ANY($1::uuid[])', [
          ids,
        ]),
      )
    ).rows[0]!.n;
  /** Events still staged once the chaining this process queued has ended (the bus answers before it). */
  const staged = async (tenantId: string) => {
    await audit.settled(tenantId);
    return (
      await t.db.withTenant(tenantId, (sql) => sql.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_pending'))
    ).rows[0]!.n;
  };
  const events = async (tenantId: string) => (await audit.query({ tenantId, limit: 500 })).events;

  beforeAll(async () => {
    t = await openTestDatabase(kind);
    await seedTenants(t.db, 'join-a', 'join-b', 'join-c', 'join-d');
    const clock = new ManualClock(new Date('2026-11-26T12:00:00Z'));
    const metrics = new Metrics({ collectDefault: false });
    const keys = new SoftwareKeyManager({ db: t.db, masterKey: Buffer.alloc(32, 7), metrics, clock });
    audit = new AuditStore({
      db: t.db,
      keys,
      metrics,
      clock,
      logger,
      signing: { enabled: false, checkpointEveryEvents: 100 },
    });
    bus = new CommandBus({
      policy: new RolePolicy({ tenantAdminRole: 'tenant-admin', platformAdminRole: 'platform-admin' }),
      audit,
      db: t.db,
      metrics,
    });
  });
  afterAll(async () => {
    await audit?.close();
    await t?.close();
  });

  it('commits both changes with every event, chained once the caller commits', async () => {
    const id = randomUUID();
    const innerId = randomUUID();
    let seenAfterCommit = -1;
    const result = await bus.execute(createOuter, ctx('join-a'), {
      id,
      innerId,
      // A task after the commit sees both rows from another transaction.
      afterCommit: async () => void (seenAfterCommit = await rows('join-a', id, innerId)),
    });
    expect(result).toEqual({ id });
    expect(seenAfterCommit).toBe(2);
    expect(await rows('join-a', id, innerId)).toBe(2);
    expect(await staged('join-a')).toBe(0);
    const chain = await events('join-a');
    expect(chain.map((e) => e.commandId).sort()).toEqual(['test.inner.create', 'test.inner.read', 'test.outer.create']);
    expect(chain.find((e) => e.commandId === 'test.inner.create')).toMatchObject({
      result: 'success',
      businessIds: { innerId },
    });
    expect(await audit.verify('join-a')).toMatchObject({ ok: true, events: 3 });
  });

  it('rolls back the joined change and its event with the caller, and runs no task after a rollback', async () => {
    const id = randomUUID();
    const innerId = randomUUID();
    let ran = false;
    await expect(
      bus.execute(createOuter, ctx('join-b'), {
        id,
        innerId,
        failAfter: true,
        afterCommit: async () => void (ran = true),
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    expect(ran).toBe(false);
    expect(await rows('join-b', id, innerId)).toBe(0);
    expect(await staged('join-b')).toBe(0);
    // Only the caller's failure is on record: the joined command's success never happened.
    expect((await events('join-b')).map((e) => [e.commandId, e.result])).toEqual([['test.outer.create', 'failure']]);
  });

  it("records a joined command's denial in the caller's unit", async () => {
    const id = randomUUID();
    await bus.execute(createOuter, ctx('join-c'), { id, innerId: randomUUID(), tryAdmin: true });
    const denied = (await events('join-c')).filter((e) => e.type === 'authorization.denied');
    expect(denied.map((e) => e.commandId)).toEqual(['test.inner.admin']);
    expect(await audit.verify('join-c')).toMatchObject({ ok: true, events: 4 });
  });

  it('refuses to join a unit of another tenant', async () => {
    const unit: JoinedUnit = { tenantId: 'join-a', sql: undefined as never, afterCommit: () => undefined };
    await expect(bus.execute(createInner, ctx('join-d', unit), { id: randomUUID() })).rejects.toThrow(/another tenant/);
    expect(await events('join-d')).toHaveLength(0);
  });
});
