import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, refuseAuditStaging } from '@tessera/platform/testing';
import { createSourceFetcher } from '../src/import/source-fetcher.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';
import { call, credentialDesign, designsConfig, startDesignsBed, type DesignsBed } from './support.js';

const CREDENTIALS = '/api/v1/designs/credentials';
const VARIANTS = '/api/v1/designs/render/variants';
const SCHEMA_PATH = '/schemas/atomic.json';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
/** Every table of the registry: a refused write must leave each exactly as it was. */
const TABLES = [
  'design_records',
  'design_bindings',
  'design_snapshots',
  'design_render_variants',
  'design_assets',
  'design_blobs',
];

/**
 * Issue 13 §7 for the design registry: each write commits with its audit event (staged in the same unit of work,
 * then chained), and a write whose event cannot be staged (the database refuses it right after the change, in the
 * same transaction) answers 503 and leaves every table of the registry as it was, with its failure audited.
 */
describe.each(DATABASE_KINDS)('design registry writes and their audit events (%s)', (kind) => {
  let bed: DesignsBed;
  let fixtures: FixtureServer;
  let designId: string;
  let importedId: string;
  let snapshotId: string;
  let variantId: string;
  let n = 0;

  beforeAll(async () => {
    fixtures = await startFixtureServer();
    fixtures.set(
      SCHEMA_PATH,
      JSON.stringify({ $id: 'urn:atomic', title: 'First', properties: { a: { type: 'string' } } }),
    );
    const config = designsConfig({ import: { allowPrivateNetworkOrigins: [fixtures.origin] } });
    const fetcher = createSourceFetcher({ ...config.import, allowHttp: false, ca: fixtures.ca });
    bed = await startDesignsBed(kind, { config, deps: { fetcher } });
  }, 120_000);
  afterAll(async () => {
    await bed?.close();
    await fixtures?.close();
  });

  const admin = (method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
    call(bed, method, url, bed.tokens.alphaAdmin, body);
  const vct = () => [{ key: 'VCT', value: `https://credentials.example.com/atomic-${n++}` }];
  /** A source of its own each time: a schema's $id becomes a binding, which one design only may hold. */
  const importBody = (path = SCHEMA_PATH) => ({
    entityType: 'CREDENTIAL',
    bindings: vct(),
    alias: 'Atomic import',
    sourceUrl: `${fixtures.origin}${path}`,
    sourceType: 'JSON_SCHEMA',
  });
  const uploadLogo = () =>
    bed.app.inject({
      method: 'POST',
      url: `${CREDENTIALS}/${designId}/assets/en/LOGO`,
      headers: { authorization: `Bearer ${bed.tokens.alphaAdmin}`, 'content-type': 'image/png' },
      payload: PNG,
    });
  const variant = () => ({ designId, renderTarget: 'SIMPLE_CARD', name: 'Card', locales: ['en'], priority: 1 });

  /** The registry's rows of tenant alpha, each table as a count and a digest of its rows. */
  const registry = () =>
    bed.t.platform.db.withTenant('alpha', async (sql) => {
      const out: Record<string, string> = {};
      for (const table of TABLES) {
        const { rows } = await sql.query<{ n: number; digest: string | null }>(
          `SELECT count(*)::int AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM ${table} t`,
        );
        out[table] = `${rows[0]!.n}:${rows[0]!.digest ?? ''}`;
      }
      return out;
    });
  const staged = async () =>
    (
      await bed.t.platform.db.withTenant('alpha', (sql) =>
        sql.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_pending'),
      )
    ).rows[0]!.n;
  const events = async (commandId: string) =>
    (await bed.t.platform.audit.query({ tenantId: 'alpha', commandId, limit: 500 })).events;

  it('commits each write with its event under the id it was staged with, and keeps nothing staged', async () => {
    const created = await admin('POST', CREDENTIALS, credentialDesign({ bindings: vct() }));
    expect(created.statusCode).toBe(201);
    designId = created.json().id;
    const imported = await admin('POST', `${CREDENTIALS}/import`, importBody());
    expect(imported.statusCode).toBe(201);
    importedId = imported.json().id;
    snapshotId = imported.json().snapshotId;
    const v = await admin('POST', VARIANTS, variant());
    expect(v.statusCode).toBe(201);
    variantId = v.json().id;
    expect((await uploadLogo()).statusCode).toBe(201);
    expect((await admin('POST', `${CREDENTIALS}/${importedId}/refresh`)).statusCode).toBe(200);
    await bed.t.platform.audit.whenIdle();
    expect(await staged()).toBe(0);
    const one = async (commandId: string, idOf: (ids: Record<string, string>) => string | undefined, id: string) => {
      const mine = (await events(commandId)).filter((e) => idOf(e.businessIds) === id);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ result: 'success' });
    };
    await one('credential-design.rest-credential-designs.create', (b) => b.designId, designId);
    await one('credential-design.rest-credential-designs.import', (b) => b.designId, importedId);
    await one('credential-design.rest-render-variants.create', (b) => b.variantId, variantId);
    await one('credential-design.rest-assets.upload', (b) => b.designId, designId);
    await one('credential-design.rest-credential-designs.refresh', (b) => b.designId, importedId);
    expect(await bed.t.platform.audit.verify('alpha')).toMatchObject({ ok: true });
  });

  const refusals: [string, string, () => Promise<{ statusCode: number; json(): unknown }>][] = [
    [
      'creates a credential design',
      'credential-design.rest-credential-designs.create',
      () => admin('POST', CREDENTIALS, credentialDesign({ bindings: vct() })),
    ],
    [
      'creates a verifier design',
      'credential-design.rest-verifier-designs.create',
      () => admin('POST', '/api/v1/designs/verifiers', { ...credentialDesign({ bindings: [] }), claims: undefined }),
    ],
    [
      'replaces a design',
      'credential-design.rest-credential-designs.update',
      () => admin('PUT', `${CREDENTIALS}/${designId}`, credentialDesign({ alias: 'Renamed', bindings: vct() })),
    ],
    [
      'deletes a design',
      'credential-design.rest-credential-designs.delete',
      () => admin('DELETE', `${CREDENTIALS}/${designId}`),
    ],
    [
      'imports a design',
      'credential-design.rest-credential-designs.import',
      () => {
        fixtures.set('/schemas/other.json', JSON.stringify({ $id: 'urn:other', title: 'Other', properties: {} }));
        return admin('POST', `${CREDENTIALS}/import`, importBody('/schemas/other.json'));
      },
    ],
    [
      'refreshes an unchanged source (the check time)',
      'credential-design.rest-credential-designs.refresh',
      () => admin('POST', `${CREDENTIALS}/${importedId}/refresh`),
    ],
    [
      'refreshes a changed source (snapshot and designs)',
      'credential-design.rest-snapshots.refresh',
      async () => {
        fixtures.set(SCHEMA_PATH, JSON.stringify({ $id: 'urn:atomic', title: 'Second', properties: {} }));
        return admin('POST', `/api/v1/designs/snapshots/${snapshotId}/refresh`);
      },
    ],
    [
      'creates a render variant',
      'credential-design.rest-render-variants.create',
      () => admin('POST', VARIANTS, variant()),
    ],
    [
      'replaces a render variant',
      'credential-design.rest-render-variants.update',
      () => admin('PUT', `${VARIANTS}/${variantId}`, { ...variant(), name: 'Renamed' }),
    ],
    [
      'deletes a render variant',
      'credential-design.rest-render-variants.delete',
      () => admin('DELETE', `${VARIANTS}/${variantId}`),
    ],
    ['uploads an asset', 'credential-design.rest-assets.upload', uploadLogo],
  ];

  it.each(refusals)(
    'a write whose event cannot be staged answers 503 and changes nothing: %s',
    async (_, commandId, write) => {
      const before = await registry();
      const failures = (await events(commandId)).filter((e) => e.result === 'failure').length;
      const lift = await refuseAuditStaging(bed.t.platform.db, commandId);
      let res;
      try {
        res = await write();
      } finally {
        await lift();
      }
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(await registry()).toEqual(before);
      await bed.t.platform.audit.whenIdle();
      expect(await staged()).toBe(0);
      expect((await events(commandId)).filter((e) => e.result === 'failure')).toHaveLength(failures + 1);
      expect(await bed.t.platform.audit.verify('alpha')).toMatchObject({ ok: true });
    },
  );
});
