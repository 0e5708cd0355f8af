import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import {
  ManualClock,
  Metrics,
  platformMigrations,
  SoftwareKeyManager,
  withSymmetricKeysMigration,
  type AuditEventInput,
  type AuditLog,
  type AuditStaging,
  type Migration,
  type PendingAuditEvent,
  type MigrationTarget,
  type Sql,
} from '@tessera/platform';
import { openTestDatabase, seedTenants, type TestDatabase, type TestDatabaseKind } from '@tessera/platform/testing';
import { identityMigrations } from '../src/storage/migrations.js';
import { PostgresIdentityStore } from '../src/storage/postgres-identity-store.js';
import type { TenantUnit } from '../src/identity-store.js';

/** The platform's migrations (with the symmetric keys' schema, until the platform lists it) and this context's. */
export const testMigrations: Migration[] = [...withSymmetricKeysMigration(platformMigrations), ...identityMigrations];

export const START = new Date('2030-01-01T00:00:00.000Z');
export const SERVICE_CLAIM = 'service_id';

/**
 * An audit log that keeps what it is given to chain (a staged event once its unit of work committed); what it
 * prepares for staging goes to the real `audit_pending` table, where a test can make staging fail.
 */
export class RecordingAudit implements AuditLog, AuditStaging {
  readonly events: AuditEventInput[] = [];
  async append(event: AuditEventInput): Promise<void> {
    this.events.push(event);
  }
  prepare(input: AuditEventInput): PendingAuditEvent {
    return {
      tenantId: input.tenantId,
      eventId: input.eventId ?? randomUUID(),
      occurredAt: (input.occurredAt ?? new Date()).toISOString(),
      type: input.type,
      commandId: input.commandId ?? null,
      principalId: input.principalId ?? null,
      result: input.result,
      correlationId: input.correlationId ?? null,
      traceId: input.traceId ?? null,
      businessIds: { ...(input.businessIds ?? {}) } as Record<string, string>,
      details: { ...(input.details ?? {}) },
    };
  }
  types(tenantId: string): string[] {
    return this.events.filter((e) => e.tenantId === tenantId).map((e) => e.type);
  }
}

export interface Harness {
  kind: TestDatabaseKind;
  t: TestDatabase;
  clock: ManualClock;
  masterKey: Buffer;
  keys: SoftwareKeyManager;
  store: PostgresIdentityStore;
  /** A fresh key manager on the same database and master key: what a restarted process has. */
  newKeyManager(): SoftwareKeyManager;
  /** Runs `fn` in one unit of work of the tenant, as the bridge does. */
  unit<T>(tenantId: string, fn: (unit: TenantUnit) => Promise<T>): Promise<T>;
  /** SQL as the database superuser, outside row-level security: what an intruder with database access sees. */
  superuser(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export async function openHarness(kind: TestDatabaseKind, ...tenants: string[]): Promise<Harness> {
  const t = await openTestDatabase(kind, testMigrations);
  await seedTenants(t.db, ...tenants);
  const clock = new ManualClock(START);
  const masterKey = randomBytes(32);
  const newKeyManager = () =>
    new SoftwareKeyManager({ db: t.db, masterKey, clock, metrics: new Metrics({ collectDefault: false }) });
  const keys = newKeyManager();
  return {
    kind,
    t,
    clock,
    masterKey,
    keys,
    store: new PostgresIdentityStore({ keys, clock, serviceClaim: SERVICE_CLAIM }),
    newKeyManager,
    unit: (tenantId, fn) => t.db.withTenant(tenantId, (sql: Sql) => fn({ tenantId, sql })),
    // The migration session runs as the login role (a superuser in tests), outside any tenant scope.
    superuser: (text, params = []) =>
      (t.db as unknown as MigrationTarget).migrationSession(async (sql) => (await sql.query(text, params)).rows),
    close: () => t.close(),
  };
}

/** What an external client computes with the shared key (000 §4.3). */
export const clientHash = (key: string, identifier: string) =>
  createHmac('sha256', Buffer.from(key, 'base64url')).update(identifier, 'utf8').digest('base64url');

export const assurance = { acr: 'urn:tessera:oid4vp:vp', amr: ['vp'] };
