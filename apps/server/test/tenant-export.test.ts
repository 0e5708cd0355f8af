import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Compile } from 'typebox/compile';
import {
  createRoleApp,
  registerTenantExportRoutes,
  tenantTransfer,
  OutboundService,
  type Platform,
  type RoleApp,
  type TenantExportDocument,
  type TenantImportReport,
} from '@tessera/platform';
import {
  DATABASE_KINDS,
  createTestPlatform,
  startTestIssuer,
  type TestDatabaseKind,
  type TestIssuer,
  type TestPlatform,
} from '@tessera/platform/testing';
import { loadServerConfig } from '../src/config.js';
import { allMigrations } from '../src/migrations.js';
import { registerTenantExporters } from '../src/tenant-exporters.js';
import { forwardingOf } from '../src/event-forwarding.js';

/** The document's JSON Schema in the repository; UPDATE_SCHEMAS=1 rewrites it from the registered exporters. */
const SCHEMA_FILE = fileURLToPath(new URL('../../../docs/schemas/tenant-export.schema.json', import.meta.url));

/** Values of the subject data seeded beside the configuration: none may appear in an export. */
const SUBJECT_VALUES = ['Quiddle-7731', 'quiddle.7731@example.org', 'subject-7731-wallet'];
const HOST = 'acme.test.example';
const DESIGN_ID = '0b1c7e9a-5d4e-4c6f-9a0b-1c2d3e4f5a6b';
const SNAPSHOT_ID = '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';

const serverConfig = () =>
  loadServerConfig({
    env: {},
    overrides: {
      tokenService: {
        clients: {
          'acme-portal': {
            tenant: 'acme',
            'client-secret': '{plain}do-not-export-this-secret',
            'redirect-uris': ['https://acme.test.example/cb'],
          },
          'other-app': { tenant: 'other', 'redirect-uris': ['https://other.example/cb'] },
        },
      },
    },
  });

interface Bed {
  t: TestPlatform;
  app: RoleApp;
  close(): Promise<void>;
}

async function startBed(kind: TestDatabaseKind, issuer: TestIssuer): Promise<Bed> {
  const t = await createTestPlatform(kind, {
    migrations: allMigrations,
    overrides: {
      auth: {
        issuers: [
          { issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience, tenants: 'any', roles: 'any' },
        ],
      },
      rateLimit: { enabled: false },
    },
  });
  registerTenantExporters(t.platform, serverConfig());
  const app = await createRoleApp(t.platform, {
    role: 'management',
    title: 'Test management',
    family: 'oauth',
    operational: 'all',
  });
  registerTenantExportRoutes(app, t.platform);
  await app.ready();
  return {
    t,
    app,
    async close() {
      await app.close();
      await t.close();
    },
  };
}

/** Configuration of every section, and subject data beside it (grants, sessions, audit) that must stay behind. */
async function seed(platform: Platform): Promise<void> {
  await platform.tenants.ensure({ id: 'acme', displayName: 'Acme University', hostNames: [HOST] });
  await new OutboundService(platform).createDestination('acme', {
    url: 'https://93.184.215.14/hooks/tessera',
    eventTypes: ['credential.issued'],
  });
  const forwarding = forwardingOf(platform, serverConfig());
  await forwarding.createForwarder('acme', {
    url: 'https://93.184.215.14/siem',
    format: 'cef',
    eventTypes: ['authentication.failed'],
  });
  await forwarding.createStream(
    'acme',
    {
      id: 'ssf-receiver',
      kind: 'client',
      tenantId: 'acme',
      roles: [],
      scopes: [],
      clientId: 'ssf-receiver',
      issuer: null,
    },
    {
      endpointUrl: 'https://93.184.215.14/ssf',
      eventsRequested: ['https://schemas.openid.net/secevent/caep/event-type/session-revoked'],
      description: 'campus SOC',
    },
  );
  await platform.keys.ensure('status-list:acme', 'ES256');
  await platform.keys.ensure('status-list:acme:alumni', 'EdDSA');
  await platform.keys.ensure('status-list:other', 'ES256');
  const now = new Date('2026-11-20T10:00:00.000Z');
  await platform.db.withTenant('acme', async (sql) => {
    await sql.query(
      `INSERT INTO design_snapshots (id, entity_type, source_url, source_type, content_type, payload, sha256,
         etag, last_modified, fetched_at, checked_at)
       VALUES ($1, 'CREDENTIAL', 'https://issuer.example/.well-known/vct', 'SD_JWT_VCT', 'application/json', $2,
         'abc', '"v1"', NULL, $3, $3)`,
      [SNAPSHOT_ID, Buffer.from('{"vct":"urn:acme:diploma"}'), now],
    );
    await sql.query(
      `INSERT INTO design_records (id, entity_type, alias, hosting_mode, source_type, source_url, snapshot_id,
         document, source_document, revision, created_at, updated_at)
       VALUES ($1, 'CREDENTIAL', 'diploma', 'HOSTED', 'SD_JWT_VCT', 'https://issuer.example/.well-known/vct', $2,
         $3::jsonb, $4::jsonb, 3, $5, $5)`,
      [
        DESIGN_ID,
        SNAPSHOT_ID,
        JSON.stringify({ displays: [{ locale: 'en', name: 'Diploma' }], claims: [{ path: ['degree'] }] }),
        JSON.stringify({ displays: [{ locale: 'en', name: 'Diploma (source)' }] }),
        now,
      ],
    );
    await sql.query(
      `INSERT INTO design_bindings (entity_type, binding_key, binding_value, design_id, position)
       VALUES ('CREDENTIAL', 'vct', 'urn:acme:diploma', $1, 0)`,
      [DESIGN_ID],
    );
    await sql.query(
      `INSERT INTO design_render_variants (id, design_id, render_target, document, created_at, updated_at)
       VALUES ('2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a', $1, 'WALLET_CARD', '{"background":"#003366"}', $2, $2)`,
      [DESIGN_ID, now],
    );
    await sql.query(
      `INSERT INTO design_assets (design_id, locale, asset_type, content_type, size, sha256, blob_key, created_at)
       VALUES ($1, 'en', 'LOGO', 'image/png', 4, 'def', $2, $3)`,
      [DESIGN_ID, `${DESIGN_ID}/en/LOGO`, now],
    );
    await sql.query(`INSERT INTO design_blobs (blob_key, bytes) VALUES ($1, $2)`, [
      `${DESIGN_ID}/en/LOGO`,
      Buffer.from([0x89, 0x50, 0x4e, 0x47]),
    ]);
    await sql.query(
      `INSERT INTO issuance_pipelines (pipeline_id, configuration, created_at, updated_at) VALUES ($1, $2::jsonb, $3, $3)`,
      [
        'diploma',
        JSON.stringify({
          pipelineId: 'diploma',
          invocationBindings: [
            {
              connectorId: 'registry',
              phase: 'OID4VCI_PRE_ISSUE',
              inputConnectorFields: ['studentId'],
              required: true,
              mode: 'SYNCHRONOUS',
            },
          ],
          claimsBindings: [
            {
              credentialConfigurationId: 'diploma',
              deferrable: false,
              claims: [{ attributePath: 'degree', claimPath: 'degree', required: true }],
            },
          ],
          expectedInitialConnectorFields: ['studentId'],
          manualApproval: false,
        }),
        now,
      ],
    );
    await sql.query(
      `INSERT INTO signing_key_entries (kid, provider_id, key_kind, public_key_spki, access_level, subject_id,
         created_at, updated_at)
       VALUES ('acme-seal', 'software', 'EC', 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE', 'TENANT', $1, $2, $2)`,
      [SUBJECT_VALUES[0], now],
    );
    // Subject data: a grant, an issuance session, an audit event. None of it is configuration.
    await sql.query(
      `INSERT INTO oauth_grants (id, client_id, subject, scope, claims, created_at, expires_at)
       VALUES ('3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b', 'acme-portal', $1, 'openid', $2::jsonb, $3, $3)`,
      [SUBJECT_VALUES[2], JSON.stringify({ email: SUBJECT_VALUES[1], name: SUBJECT_VALUES[0] }), now],
    );
    await sql.query(
      `INSERT INTO issuance_sessions (correlation_id, id, pipeline_id, pipeline, encryption_mode, status, state,
         created_at, updated_at, expires_at)
       VALUES ('corr-1', '4f5a6b7c-8d9e-4f0a-9b1c-2d3e4f5a6b7c', 'diploma', '{}'::jsonb, 'NONE', 'OPEN', $1::jsonb,
         $2, $2, $2)`,
      [JSON.stringify({ holder: SUBJECT_VALUES[0] }), now],
    );
  });
  await platform.audit.append({
    tenantId: 'acme',
    type: 'command.executed',
    principalId: SUBJECT_VALUES[2],
    result: 'success',
    details: { name: SUBJECT_VALUES[0] },
  });
}

const stripKeyMaterial = (doc: TenantExportDocument) => {
  const { exportedAt: _exportedAt, ...copy } = structuredClone(doc);
  const keys = copy.sections['platform.signing-key-aliases']!.data as { publicJwks?: unknown }[];
  for (const k of keys) delete k.publicJwks;
  return copy;
};

describe.each(DATABASE_KINDS)('tenant export and import (%s)', (kind) => {
  let issuer: TestIssuer;
  let source: Bed;
  let target: Bed;
  let admin: string;
  let tenantAdmin: string;

  beforeAll(async () => {
    issuer = await startTestIssuer();
    source = await startBed(kind, issuer);
    target = await startBed(kind, issuer);
    await seed(source.t.platform);
    admin = await issuer.sign({ sub: 'root', roles: ['platform-admin'] });
    tenantAdmin = await issuer.sign({ sub: 'ada', tenant_id: 'acme', roles: ['tenant-admin'] });
  }, 120_000);

  afterAll(async () => {
    await source?.close();
    await target?.close();
    await issuer?.close();
  });

  const get = (bed: Bed, tenant: string, token?: string) =>
    bed.app.inject({
      method: 'GET',
      url: `/api/v1/tenants/${tenant}/export`,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  const post = (bed: Bed, tenant: string, body: unknown, token: string | undefined = admin) =>
    bed.app.inject({
      method: 'POST',
      url: `/api/v1/tenants/${tenant}/import`,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      payload: body as Record<string, unknown>,
    });

  it('answers platform administrators only, and 404 for an unknown tenant', async () => {
    expect((await get(source, 'acme')).statusCode).toBe(401);
    const denied = await get(source, 'acme', tenantAdmin);
    expect(denied.statusCode).toBe(403);
    expect((await get(source, 'nobody', admin)).statusCode).toBe(404);
    expect((await post(target, 'fresh', {}, tenantAdmin)).statusCode).toBe(403);
    expect(target.t.platform.tenants.get('fresh')).toBeUndefined();
    const audit = await source.t.platform.audit.query({ tenantId: 'acme', type: 'authorization.denied', limit: 10 });
    expect(audit.events.map((e) => e.commandId)).toContain('platform.tenants.export');
  });

  it('exports one versioned document that the repository schema accepts, with no subject data and no secret', async () => {
    const res = await get(source, 'acme', admin);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const doc = res.json<TenantExportDocument>();
    expect(doc).toMatchObject({
      format: 'tessera.tenant-export',
      version: 1,
      sourceTenantId: 'acme',
      tenant: { displayName: 'Acme University', status: 'active', hostNames: [HOST] },
    });
    expect(Object.keys(doc.sections)).toEqual([
      'bridge.verifier-queries',
      'designs.credential-designs',
      'issuance.pipelines',
      'platform.event-streams',
      'platform.signing-key-aliases',
      'platform.webhook-destinations',
      'signing.document-signing-keys',
      'token-service.clients',
    ]);
    expect(doc.sections['signing.document-signing-keys']!.data).toEqual([
      expect.objectContaining({ kid: 'acme-seal', keyKind: 'EC', accessLevel: 'TENANT' }),
    ]);
    const designs = doc.sections['designs.credential-designs']!.data as Record<string, unknown[]>;
    expect(designs.design_records).toHaveLength(1);
    expect(designs.design_bindings).toHaveLength(1);
    expect(designs.design_render_variants).toHaveLength(1);
    expect(designs.design_snapshots).toHaveLength(1);
    expect(designs.design_blobs).toEqual({ [`${DESIGN_ID}/en/LOGO`]: 'iVBORw==' });
    expect(doc.sections['issuance.pipelines']!.data).toMatchObject([{ pipelineId: 'diploma' }]);
    expect(doc.sections['platform.event-streams']!.data).toEqual([
      {
        format: 'cef',
        url: 'https://93.184.215.14/siem',
        audience: [],
        eventsRequested: ['authentication.failed'],
        description: null,
      },
      expect.objectContaining({ format: 'set', audience: ['ssf-receiver'], description: 'campus SOC' }),
    ]);
    // Stream destinations are the streams' own: not listed again as application webhooks.
    expect(doc.sections['platform.webhook-destinations']!.data).toHaveLength(1);
    expect(doc.sections['platform.webhook-destinations']!.data).toMatchObject([
      { url: 'https://93.184.215.14/hooks/tessera', eventTypes: ['credential.issued'], enabled: true },
    ]);
    // The tenant's aliases only, with the tenant written as a placeholder; public keys only.
    const keys = doc.sections['platform.signing-key-aliases']!.data as { alias: string; publicJwks: object[] }[];
    expect(keys.map((k) => k.alias)).toEqual(['status-list:{tenant}', 'status-list:{tenant}:alumni']);
    for (const k of keys) for (const jwk of k.publicJwks) expect(jwk).not.toHaveProperty('d');
    expect(doc.sections['token-service.clients']).toEqual({
      origin: 'configuration',
      data: [expect.objectContaining({ 'client-id': 'acme-portal', confidential: true })],
    });

    // The repository's JSON Schema is the one the registered exporters make, and it accepts the document.
    const generated = JSON.parse(JSON.stringify(tenantTransfer(source.t.platform).schema())) as object;
    if (process.env.UPDATE_SCHEMAS === '1') writeFileSync(SCHEMA_FILE, `${JSON.stringify(generated, null, 2)}\n`);
    expect(existsSync(SCHEMA_FILE)).toBe(true);
    const committed = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object;
    expect(committed).toEqual(generated);
    const validator = Compile(committed as never);
    expect([...validator.Errors(doc)]).toEqual([]);
    expect(
      validator.Check({ ...doc, sections: { ...doc.sections, 'party.people': { origin: 'stored', data: [] } } }),
    ).toBe(false);

    // No subject value, no secret, no sealed value, no audit history anywhere in the text.
    const text = res.body;
    for (const value of SUBJECT_VALUES) expect(text).not.toContain(value);
    for (const value of ['do-not-export-this-secret', 'whsec_', 'e1.', '"d":', 'command.executed'])
      expect(text).not.toContain(value);
  });

  it('imports into an empty tenant of another deployment: the same configuration (deep-equal), new secrets and keys', async () => {
    const doc = (await get(source, 'acme', admin)).json<TenantExportDocument>();
    const imported = await post(target, 'acme', doc);
    expect(imported.statusCode).toBe(201);
    const report = imported.json<TenantImportReport>();
    expect(report.imported).toEqual([
      'designs.credential-designs',
      'issuance.pipelines',
      'platform.event-streams',
      'platform.signing-key-aliases',
      'platform.webhook-destinations',
    ]);
    expect(report.notImported.map((n) => n.section)).toEqual([
      'bridge.verifier-queries',
      'signing.document-signing-keys',
      'token-service.clients',
    ]);
    const destinationId = (doc.sections['platform.webhook-destinations']!.data as { id: string }[])[0]!.id;
    expect(report.issuedSecrets['platform.webhook-destinations']![destinationId]).toMatch(/^whsec_/);
    expect(Object.values(report.issuedSecrets['platform.event-streams']!)).toEqual([expect.stringMatching(/^whsec_/)]);

    const again = (await get(target, 'acme', admin)).json<TenantExportDocument>();
    // Document-signing keys are a reference (their private half stays with the provider): recreated by hand.
    expect(again.sections['signing.document-signing-keys']!.data).toEqual([]);
    const configuration = (d: TenantExportDocument) => {
      const copy = stripKeyMaterial(d);
      delete copy.sections['signing.document-signing-keys'];
      return copy;
    };
    expect(configuration(again)).toEqual(configuration(doc));
    // Key material never travels: the aliases are the same, the keys are new.
    const kids = (d: TenantExportDocument) =>
      (d.sections['platform.signing-key-aliases']!.data as { publicJwks: { kid: string }[] }[]).map(
        (k) => k.publicJwks[0]!.kid,
      );
    expect(kids(again)).toHaveLength(2);
    for (const kid of kids(again)) expect(kids(doc)).not.toContain(kid);
    // The import is audited in the target tenant's chain, which verifies.
    const events = await target.t.platform.audit.query({
      tenantId: 'acme',
      commandId: 'platform.tenants.import',
      limit: 5,
    });
    expect(events.events).toHaveLength(1);
    expect((await target.t.platform.audit.verify('acme')).ok).toBe(true);
  });

  it('refuses a non-empty target (409), a host name bound elsewhere (409) and a malformed document (400)', async () => {
    const doc = (await get(source, 'acme', admin)).json<TenantExportDocument>();
    const twice = await post(target, 'acme', doc);
    expect(twice.statusCode).toBe(409);
    expect(twice.json<{ error_description: string }>().error_description).toContain('designs.credential-designs');

    const elsewhere = await post(target, 'acme-two', doc);
    expect(elsewhere.statusCode).toBe(409);
    expect(target.t.platform.tenants.get('acme-two')).toBeUndefined();

    const unknownSection = await post(target, 'acme-three', {
      ...doc,
      tenant: { ...doc.tenant, hostNames: [] },
      sections: { ...doc.sections, 'party.people': { origin: 'stored', data: [] } },
    });
    expect(unknownSection.statusCode).toBe(400);
    expect(unknownSection.json<{ field: string }>().field).toBe('sections.party.people');
    expect((await post(target, 'acme-three', { ...doc, version: 2 })).statusCode).toBe(400);
    expect((await post(target, 'acme-three', [1, 2])).statusCode).toBe(400);
    // A document that breaks a rule of a store (a binding to a design it does not hold) or names a blob outside
    // its key space is a bad document (400), and nothing of it is written.
    const designsOf = (d: TenantExportDocument) =>
      d.sections['designs.credential-designs']!.data as Record<string, Record<string, unknown>[]> & {
        design_blobs: Record<string, string>;
      };
    const dangling = structuredClone(doc);
    dangling.tenant.hostNames = [];
    designsOf(dangling).design_bindings[0]!.design_id = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
    const broken = await post(target, 'acme-five', dangling);
    expect(broken.statusCode).toBe(400);
    const traversal = structuredClone(doc);
    traversal.tenant.hostNames = [];
    designsOf(traversal).design_blobs = { '../other-tenant/logo': 'iVBORw==' };
    const escaped = await post(target, 'acme-five', traversal);
    expect(escaped.statusCode).toBe(400);
    expect(escaped.json<{ field: string }>().field).toContain('design_blobs');
    const badId = structuredClone(doc);
    badId.tenant.hostNames = [];
    designsOf(badId).design_records[0]!.id = 'not-a-uuid';
    expect((await post(target, 'acme-five', badId)).statusCode).toBe(400);
    const five = (await get(target, 'acme-five', admin)).json<TenantExportDocument>();
    expect(designsOf(five).design_records).toEqual([]);

    const privateUrl = structuredClone(doc);
    privateUrl.tenant.hostNames = [];
    (privateUrl.sections['platform.webhook-destinations']!.data as { url: string }[])[0]!.url = 'https://127.0.0.1/x';
    const refused = await post(target, 'acme-four', privateUrl);
    expect(refused.statusCode).toBe(400);
    // The refused import left its new tenant registered and empty: the same document imports afterwards.
    (privateUrl.sections['platform.webhook-destinations']!.data as { url: string }[])[0]!.url =
      'https://93.184.215.14/hooks/other';
    expect((await post(target, 'acme-four', privateUrl)).statusCode).toBe(201);
  });
});
