import {
  createRoleApp,
  platformMigrations,
  withSymmetricKeysMigration,
  type Database,
  type MigrationTarget,
  type RoleApp,
  type Sql,
} from '@tessera/platform';
import {
  createTestPlatform,
  startTestIssuer,
  type TestDatabaseKind,
  type TestIssuer,
  type TestPlatform,
} from '@tessera/platform/testing';
import { identityMigrations, PostgresIdentityStore } from '@tessera/identity';
import { partiesMigrations } from '../../src/index.js';
import { registerPartyApi } from '../../src/register.js';
import { createPartiesServices } from '../../src/services.js';

export const BASE = '/api/party/v1';

export interface CallResult {
  status: number;
  headers: Record<string, unknown>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * The parties role app on a whole platform of the given engine (real HTTP through app.inject, real database), a
 * token issuer the platform trusts, tenants alpha and beta, and a count of the SQL statements the API runs.
 */
export interface PartyBed {
  kind: TestDatabaseKind;
  t: TestPlatform;
  app: RoleApp;
  issuer: TestIssuer;
  identities: PostgresIdentityStore;
  /** Tenant administrators and plain readers of alpha and beta. */
  tokens: { adminA: string; readerA: string; adminB: string; readerB: string };
  /** SQL statements the party API ran since the last reset. */
  statements(): number;
  resetStatements(): void;
  call(
    method: string,
    path: string,
    options?: { token?: string | null; body?: unknown; headers?: Record<string, string>; remoteAddress?: string },
  ): Promise<CallResult>;
  /** Creates a party as alpha's administrator (or the given token) and answers its id. */
  create(resource: string, body: Record<string, unknown>, token?: string): Promise<string>;
  /** SQL as the login role outside row-level security: what is really in the tables. */
  superuser(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

function countingStatements(db: Database): { db: Database; count: () => number; reset: () => void } {
  let statements = 0;
  const wrap = (sql: Sql): Sql => ({
    query: (text, params, options) => (statements++, sql.query(text, params, options)),
    exec: (script) => (statements++, sql.exec(script)),
  });
  return {
    count: () => statements,
    reset: () => (statements = 0),
    db: {
      kind: db.kind,
      withTenant: (tenantId, fn) => db.withTenant(tenantId, (sql) => fn(wrap(sql))),
      withTenantSession: (tenantId, fn) => db.withTenantSession(tenantId, (sql) => fn(wrap(sql))),
      withPlatform: (fn) => db.withPlatform((sql) => fn(wrap(sql))),
      withAdvisoryLock: (name, fn) => db.withAdvisoryLock(name, fn),
      ping: (timeoutMs) => db.ping(timeoutMs),
      changes: db.changes,
      close: () => db.close(),
    },
  };
}

/** What a bed may change: the platform's tenancy section, and whether its issuer may grant any role. */
export interface PartyBedOptions {
  tenancy?: Record<string, unknown>;
  issuerRoles?: 'any';
}

export async function startPartyBed(kind: TestDatabaseKind, options: PartyBedOptions = {}): Promise<PartyBed> {
  const issuer = await startTestIssuer();
  const t = await createTestPlatform(kind, {
    migrations: [...withSymmetricKeysMigration(platformMigrations), ...identityMigrations, ...partiesMigrations],
    overrides: {
      auth: {
        issuers: [
          {
            issuer: issuer.issuer,
            jwksUri: issuer.jwksUri,
            audience: issuer.audience,
            tenants: ['alpha', 'beta'],
            ...(options.issuerRoles ? { roles: options.issuerRoles } : {}),
          },
        ],
      },
      ...(options.tenancy ? { tenancy: options.tenancy } : {}),
      rateLimit: { enabled: false },
    },
  });
  const platform = t.platform;
  await platform.tenants.ensure({ id: 'alpha', displayName: 'Alpha' });
  await platform.tenants.ensure({ id: 'beta', displayName: 'Beta' });
  const identities = new PostgresIdentityStore({
    keys: platform.keys,
    clock: platform.clock,
    serviceClaim: 'service_id',
  });
  const counting = countingStatements(platform.db);
  const app = await createRoleApp(platform, { role: 'parties', title: 'Tessera parties', family: 'party' });
  await registerPartyApi(
    app,
    createPartiesServices(platform, {
      config: { defaultPageSize: 20, maxPageSize: 200 },
      identities,
      db: counting.db,
    }),
  );
  await app.ready();
  const token = (sub: string, tenant: string, roles: string[]) =>
    issuer.sign({ sub, tenant_id: tenant, roles }, { expiresInSeconds: 3600 });
  const tokens = {
    adminA: await token('admin-a', 'alpha', ['tenant-admin']),
    readerA: await token('reader-a', 'alpha', []),
    adminB: await token('admin-b', 'beta', ['tenant-admin']),
    readerB: await token('reader-b', 'beta', []),
  };
  const call: PartyBed['call'] = async (method, path, options = {}) => {
    const token = options.token === undefined ? tokens.adminA : options.token;
    const res = await app.inject({
      method: method as 'GET',
      ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
      url: `${BASE}${path}`,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined
        ? { payload: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }
        : {}),
    });
    return { status: res.statusCode, headers: res.headers, body: res.body ? JSON.parse(res.body) : undefined };
  };
  return {
    kind,
    t,
    app,
    issuer,
    identities,
    tokens,
    statements: counting.count,
    resetStatements: counting.reset,
    call,
    async create(resource, body, token) {
      const res = await call('POST', `/${resource}`, { body, token: token ?? tokens.adminA });
      if (res.status !== 201) throw new Error(`create ${resource}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.id as string;
    },
    superuser: (text, params = []) =>
      (platform.db as unknown as MigrationTarget).migrationSession(async (sql) => (await sql.query(text, params)).rows),
    async close() {
      await app.close();
      await t.close();
      await issuer.close();
    },
  };
}

let counter = 0;
/** A name no other test of the run uses. */
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
