import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandContext } from '../src/commands/command.js';
import type { MigrationTarget } from '../src/db/migrate.js';
import { AppError } from '../src/errors/index.js';
import { importTenant } from '../src/tenant-export/commands/import-tenant.js';
import {
  IMPORT_TENANT,
  registerTenantExporter,
  tenantTransfer,
  webhookDestinationsExporter,
  type TenantExportDocument,
} from '../src/tenant-export/index.js';
import { DATABASE_KINDS, createTestPlatform, refuseAuditStaging, type TestPlatform } from '../src/testing/index.js';

/**
 * Issue 13 §7 for the tenant import: its stored sections commit with the import's audit event, and an import whose
 * unit of work is refused leaves the target tenant as it was (no section written, its registration unchanged).
 */
describe.each(DATABASE_KINDS)('tenant import and its audit event (%s)', (kind) => {
  let t: TestPlatform;

  beforeAll(async () => {
    t = await createTestPlatform(kind, { overrides: { rateLimit: { enabled: false } } });
    await t.platform.tenants.ensure({ id: 'alpha', displayName: 'Alpha' });
    await t.platform.tenants.ensure({ id: 'gamma', displayName: 'Gamma' });
    await t.platform.tenants.load();
    registerTenantExporter(t.platform, webhookDestinationsExporter(t.platform));
  }, 60_000);

  afterAll(async () => t?.close());

  const superuser = (text: string) =>
    (t.platform.db as unknown as MigrationTarget).migrationSession(async (sql) => (await sql.query(text)).rows);

  const state = async () => ({
    tenant: await superuser(`SELECT display_name, status, host_names FROM tenants WHERE id = 'gamma'`),
    destinations: await superuser(`SELECT id, url FROM webhook_destinations WHERE tenant_id = 'gamma'`),
    staged: await superuser('SELECT event_id FROM audit_pending'),
  });

  /** A platform administrator importing into gamma. */
  const context = (): CommandContext => ({
    tenantId: 'gamma',
    principal: {
      id: 'operator',
      kind: 'user',
      tenantId: null,
      roles: ['platform-admin'],
      scopes: [],
      clientId: null,
      issuer: null,
    },
    correlationId: 'import-1',
    trace: null,
    log: t.platform.logger,
  });

  const successes = async () =>
    (await t.platform.audit.query({ tenantId: 'gamma', commandId: IMPORT_TENANT, limit: 50 })).events.filter(
      (e) => e.result === 'success',
    );

  it('writes the sections with the event, or nothing when the event cannot be staged', async () => {
    const transfer = tenantTransfer(t.platform);
    const exported = await transfer.exportTenant('alpha');
    const destinationId = randomUUID();
    const doc: TenantExportDocument = {
      ...exported,
      tenant: { ...exported.tenant, displayName: 'Alpha, imported' },
      sections: {
        'platform.webhook-destinations': {
          origin: 'stored',
          data: [{ id: destinationId, url: 'https://hooks.example.com/in', enabled: true, eventTypes: [] }],
        },
      },
    };
    const run = () => t.platform.commands.execute(importTenant(transfer), context(), doc);

    const before = await state();
    expect(before.destinations).toEqual([]);
    const allow = await refuseAuditStaging(t.platform.db);
    try {
      await expect(run()).rejects.toMatchObject({ code: 'service_unavailable' });
    } finally {
      await allow();
    }
    await t.platform.audit.whenIdle();
    expect(await state()).toEqual(before);
    expect(await successes()).toEqual([]);

    const report = await run();
    expect(report.imported).toEqual(['platform.webhook-destinations']);
    await t.platform.audit.whenIdle();
    const after = await state();
    expect(after.destinations).toEqual([{ id: destinationId, url: 'https://hooks.example.com/in' }]);
    expect(after.tenant[0]).toMatchObject({ display_name: 'Alpha, imported' });
    expect(after.staged).toEqual([]);
    expect(await successes()).toHaveLength(1);
    expect(await t.platform.audit.verify('gamma')).toMatchObject({ ok: true });
  });

  it('answers the committed import when a section after the commit fails, naming that section', async () => {
    await t.platform.tenants.ensure({ id: 'delta', displayName: 'Delta' });
    await t.platform.tenants.load();
    // A section whose work after the commit fails (as key creation would with the key store gone at that moment).
    registerTenantExporter(t.platform, {
      section: 'test.after-commit',
      origin: 'stored',
      ownUnits: true,
      schema: Type.Array(Type.String()),
      read: async () => ['x'],
      afterCommit: async () => {
        throw new AppError('service_unavailable', 'The key store is unreachable.');
      },
    });
    const transfer = tenantTransfer(t.platform);
    const exported = await transfer.exportTenant('alpha');
    const destinationId = randomUUID();
    const doc: TenantExportDocument = {
      ...exported,
      sections: {
        'platform.webhook-destinations': {
          origin: 'stored',
          data: [{ id: destinationId, url: 'https://hooks.example.com/d', enabled: true, eventTypes: [] }],
        },
        'test.after-commit': { origin: 'stored', data: ['x'] },
      },
    };
    const report = await t.platform.commands.execute(importTenant(transfer), { ...context(), tenantId: 'delta' }, doc);
    expect(report.imported).toEqual(['platform.webhook-destinations']);
    expect(report.notImported).toEqual([
      {
        section: 'test.after-commit',
        reason: expect.stringContaining('The key store is unreachable.') as unknown as string,
      },
    ]);
    const rows = await superuser(`SELECT id FROM webhook_destinations WHERE tenant_id = 'delta'`);
    expect(rows).toEqual([{ id: destinationId }]);
    await t.platform.audit.whenIdle();
    const events = (await t.platform.audit.query({ tenantId: 'delta', commandId: IMPORT_TENANT })).events;
    expect(events.map((e) => e.result)).toEqual(['success']);
  });
});
