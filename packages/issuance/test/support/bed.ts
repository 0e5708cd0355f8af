import { randomBytes } from 'node:crypto';
import {
  createRoleApp,
  platformMigrations,
  withSymmetricKeysMigration,
  type MigrationTarget,
  type RoleApp,
} from '@tessera/platform';
import {
  createTestPlatform,
  startTestIssuer,
  type TestDatabaseKind,
  type TestIssuer,
  type TestPlatform,
} from '@tessera/platform/testing';
import type { IssuanceConfig } from '../../src/config.js';
import { issuanceMigrations } from '../../src/index.js';
import { registerIssuanceApi } from '../../src/register.js';
import { createIssuanceServices } from '../../src/services.js';

export const BASE = '/api/oid4vci/v1/backend';

export const TEST_CONFIG: IssuanceConfig = {
  sessionTtl: { defaultSeconds: 3600, minSeconds: 60, maxSeconds: 604_800 },
  attributeReaderRoles: ['issuance-support', 'issuance-auditor'],
  callbackTokenTtlSeconds: 900,
  connectors: [],
  connectorCalls: {
    syncWaitWindowMs: 2000,
    attempts: 3,
    retryBaseMs: 200,
    retryCapMs: 2000,
    breakerFailureThreshold: 5,
    breakerCooldownMs: 30_000,
    invocationLeaseMs: 120_000,
    responseLimitBytes: 262_144,
    allowPrivateOrigins: [],
    allowHttp: false,
    callbackBaseUrl: 'http://127.0.0.1:8096',
  },
};

export interface CallResult {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export type Call = (
  method: string,
  path: string,
  options?: { token?: string | null; body?: unknown },
) => Promise<CallResult>;

/** One process of the issuance role: a whole platform and its app (real HTTP through app.inject). */
export interface Replica {
  t: TestPlatform;
  app: RoleApp;
  call: Call;
  close(): Promise<void>;
}

/**
 * The issuance role on a whole platform of the given engine, a token issuer the platform trusts for tenants alpha
 * and beta, and tokens: tenant administrators, a plain reader and a support reader of alpha, beta's administrator.
 */
export interface IssuanceBed extends Replica {
  kind: TestDatabaseKind;
  issuer: TestIssuer;
  masterKey: string;
  tokens: { adminA: string; readerA: string; supportA: string; adminB: string };
  /** SQL as the login role outside row-level security: what is really in the tables. */
  superuser(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** A second process on the same database (PostgreSQL only): same master key, its own pool and app. */
  replica(): Promise<Replica>;
}

async function startReplica(
  kind: TestDatabaseKind,
  issuer: TestIssuer,
  masterKey: string,
  tokens: () => IssuanceBed['tokens'],
  config: IssuanceConfig,
  databaseUrl?: string,
): Promise<Replica> {
  const t = await createTestPlatform(kind, {
    migrations: [...withSymmetricKeysMigration(platformMigrations), ...issuanceMigrations],
    overrides: {
      keys: { masterKey },
      ...(databaseUrl ? { database: { url: databaseUrl } } : {}),
      auth: {
        issuers: [
          { issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience, tenants: ['alpha', 'beta'] },
        ],
      },
      rateLimit: { enabled: false },
    },
  });
  await t.platform.tenants.ensure({ id: 'alpha', displayName: 'Alpha' });
  await t.platform.tenants.ensure({ id: 'beta', displayName: 'Beta' });
  const app = await createRoleApp(t.platform, { role: 'issuance', title: 'Tessera issuance', family: 'design' });
  await registerIssuanceApi(app, createIssuanceServices(t.platform, config));
  await app.ready();
  const call: Call = async (method, path, options = {}) => {
    const token = options.token === undefined ? tokens().adminA : options.token;
    const res = await app.inject({
      method: method as 'GET',
      url: `${BASE}${path}`,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(options.body !== undefined
        ? { payload: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }
        : {}),
    });
    return { status: res.statusCode, text: res.body, body: res.body ? JSON.parse(res.body) : undefined };
  };
  return {
    t,
    app,
    call,
    async close() {
      await app.close();
      await t.close();
    },
  };
}

/** `config`: the issuance configuration of every replica (connector tests register their connectors there). */
export async function startIssuanceBed(
  kind: TestDatabaseKind,
  config: IssuanceConfig = TEST_CONFIG,
): Promise<IssuanceBed> {
  const issuer = await startTestIssuer();
  const masterKey = randomBytes(32).toString('base64');
  const held: { tokens?: IssuanceBed['tokens'] } = {};
  const main = await startReplica(kind, issuer, masterKey, () => held.tokens!, config);
  const token = (sub: string, tenant: string, roles: string[]) =>
    issuer.sign({ sub, tenant_id: tenant, roles }, { expiresInSeconds: 3600 });
  const tokens = {
    adminA: await token('admin-a', 'alpha', ['tenant-admin']),
    readerA: await token('reader-a', 'alpha', []),
    supportA: await token('support-a', 'alpha', ['issuance-support']),
    adminB: await token('admin-b', 'beta', ['tenant-admin']),
  };
  held.tokens = tokens;
  const replicas: Replica[] = [];
  return {
    ...main,
    kind,
    issuer,
    masterKey,
    tokens,
    // After the audit chaining this process queued (commands answer before it): tests read audit tables here.
    superuser: async (text, params = []) => {
      await main.t.platform.audit.settled();
      return (main.t.platform.db as unknown as MigrationTarget).migrationSession(
        async (sql) => (await sql.query(text, params)).rows as Record<string, unknown>[],
      );
    },
    async replica() {
      const r = await startReplica(kind, issuer, masterKey, () => held.tokens!, config, main.t.databaseUrl);
      replicas.push(r);
      return r;
    },
    async close() {
      for (const r of replicas) await r.close();
      await main.close();
      await issuer.close();
    },
  };
}

let counter = 0;
/** A name no other test of the run uses. */
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
