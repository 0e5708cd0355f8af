import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandBus, createLogger, Metrics, RolePolicy, type CommandContext, type Principal } from '@tessera/platform';
import { DATABASE_KINDS, refuseAuditStaging } from '@tessera/platform/testing';
import { exportSharedHmacKeyCommand, EXPORT_SHARED_HMAC_KEY } from '../src/commands/export-shared-hmac-key.js';
import { resumeKeyMigration } from '../src/commands/resume-key-migration.js';
import { rollbackKeyMigration } from '../src/commands/rollback-key-migration.js';
import { startKeyMigration, START_KEY_MIGRATION } from '../src/commands/start-key-migration.js';
import { KEY_MIGRATION_EVENTS } from '../src/key-migration/migration-audit.js';
import { clientHash, openHarness, RecordingAudit, SERVICE_CLAIM, type Harness } from './support.js';
import { newRunner, seed } from './seed.js';

const principal = (roles: string[]): Principal => ({
  id: 'operator-7',
  kind: 'user',
  tenantId: null,
  roles,
  scopes: [],
  clientId: null,
  issuer: null,
});

describe.each(DATABASE_KINDS)('key commands through the command bus (%s)', (kind) => {
  let h: Harness;
  let audit: RecordingAudit;
  let bus: CommandBus;
  const lines: string[] = [];

  beforeAll(async () => {
    h = await openHarness(kind, 'tenant-a');
    audit = new RecordingAudit();
    bus = new CommandBus({
      policy: new RolePolicy({ tenantAdminRole: 'tenant-admin', platformAdminRole: 'platform-admin' }),
      audit,
      metrics: new Metrics({ collectDefault: false }),
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const context = (roles: string[]): CommandContext => ({
    tenantId: 'tenant-a',
    principal: principal(roles),
    correlationId: 'corr-1',
    trace: null,
    log: createLogger({
      level: 'info',
      service: 'test',
      destination: new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }),
    }),
  });

  it('starts, stops, resumes and rolls back a migration for platform administrators only, auditing each step', async () => {
    const seeded = await seed(h, 'tenant-a', 4);
    const runner = newRunner(h, { audit, batchSize: 2 });
    await expect(bus.execute(startKeyMigration(runner), context(['tenant-admin']), {})).rejects.toMatchObject({
      code: 'policy_denied',
    });

    const stop = new AbortController();
    stop.abort();
    const admin = context(['platform-admin']);
    const open = await bus.execute(startKeyMigration(runner), admin, { signal: stop.signal });
    expect(open).toMatchObject({ status: 'IN_PROGRESS', batchesCommitted: 0 });
    const rolledBack = await bus.execute(rollbackKeyMigration(runner), admin, {});
    expect(rolledBack).toMatchObject({ id: open.id, status: 'ROLLED_BACK' });
    await expect(bus.execute(resumeKeyMigration(runner), admin, {})).rejects.toMatchObject({ code: 'not_found' });

    const done = await bus.execute(startKeyMigration(runner), admin, {});
    expect(done).toMatchObject({ status: 'COMPLETED', recordsProcessed: 4, to: { dek: 3, hmac: 3 } });

    const exported = await bus.execute(
      exportSharedHmacKeyCommand({ db: h.t.db, keys: h.keys, clock: h.clock }),
      admin,
      {},
    );
    expect(exported).toMatchObject({ version: 3, algorithm: 'HS256' });
    const value = String(seeded[1]!.claims[SERVICE_CLAIM]);
    const found = await h.unit('tenant-a', (u) =>
      h.store.findByIdentifierHash(u, 'SERVICE_ID', clientHash(exported.key, value)),
    );
    expect(found.map((r) => r.internalIdentityId)).toEqual([seeded[1]!.id]);

    expect(audit.types('tenant-a')).toEqual([
      'authorization.denied',
      KEY_MIGRATION_EVENTS.started,
      'command.executed',
      KEY_MIGRATION_EVENTS.rolledBack,
      'command.executed',
      'command.executed',
      KEY_MIGRATION_EVENTS.started,
      KEY_MIGRATION_EVENTS.completed,
      'command.executed',
      'command.executed',
    ]);
    const lifecycle = audit.events.filter((e) => e.type.startsWith('identity.key_migration.'));
    expect(lifecycle.every((e) => e.principalId === 'operator-7' && e.correlationId === 'corr-1')).toBe(true);
    expect(
      audit.events.find((e) => e.commandId === START_KEY_MIGRATION && e.type === 'command.executed'),
    ).toMatchObject({
      businessIds: { migrationId: open.id },
      result: 'success',
    });
    // The exported key is in no audit event and no log line.
    const exportEvent = audit.events.find((e) => e.commandId === EXPORT_SHARED_HMAC_KEY);
    expect(exportEvent).toMatchObject({ businessIds: { which: 'current', hmacVersion: '3' } });
    expect(JSON.stringify(audit.events)).not.toContain(exported.key);
    expect(lines.join('')).not.toContain(exported.key);
  });

  it('changes nothing when a transition’s event cannot be staged: no migration opens, none rolls back', async () => {
    await seed(h, 'tenant-a', 2);
    const runner = newRunner(h, { audit, batchSize: 2 });
    const admin = context(['platform-admin']);
    const migrations = () => h.superuser('SELECT id, status, finished_at FROM key_migrations ORDER BY id');
    const lifecycle = () => audit.events.filter((e) => e.type.startsWith('identity.key_migration.')).length;
    const refusedWhile = async (fn: () => Promise<unknown>) => {
      const allow = await refuseAuditStaging(h.t.db);
      try {
        await expect(fn()).rejects.toMatchObject({ code: 'service_unavailable' });
      } finally {
        await allow();
      }
    };

    const before = await migrations();
    const events = lifecycle();
    await refusedWhile(() => bus.execute(startKeyMigration(runner), admin, {}));
    expect(await migrations()).toEqual(before);
    expect(lifecycle()).toBe(events);

    const stop = new AbortController();
    stop.abort();
    const open = await bus.execute(startKeyMigration(runner), admin, { signal: stop.signal });
    expect(open.status).toBe('IN_PROGRESS');
    const opened = await migrations();
    await refusedWhile(() => bus.execute(rollbackKeyMigration(runner), admin, {}));
    expect(await migrations()).toEqual(opened);
    expect(
      audit.events.filter((e) => e.type === KEY_MIGRATION_EVENTS.rolledBack && e.businessIds?.migrationId === open.id),
    ).toEqual([]);

    expect(await bus.execute(rollbackKeyMigration(runner), admin, {})).toMatchObject({
      id: open.id,
      status: 'ROLLED_BACK',
    });
    expect(
      audit.events.filter((e) => e.type === KEY_MIGRATION_EVENTS.rolledBack && e.businessIds?.migrationId === open.id),
    ).toHaveLength(1);
  });
});
