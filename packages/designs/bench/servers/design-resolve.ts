import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRoleApp, platformMigrations } from '@tessera/platform';
import { createPostgresTestDatabase, startTestIssuer } from '@tessera/platform/testing';
import { Value } from 'typebox/value';
import { serveAfterSetup } from '../../../../bench/lib/server-child.js';
import type { SetupClient } from '../../../../bench/lib/setup-client.js';
import { benchDataDir, startBenchPlatform } from '../../../../bench/lib/bench-platform.js';
import { DesignsConfigSchema, designsMigrations, registerDesignsRoutes, type DesignsConfig } from '../../src/index.js';
import { benchVct, resolveRequestBody } from '../resolve-request.js';

/**
 * The designs role app for the resolve scenarios, on PostgreSQL (a fresh database on the machine's server): the
 * whole platform (bearer JWT, tenant, rate limit, command bus with policy, metrics, logs at info), DESIGNS credential
 * designs of the demo tenant, each in three locales (en, de, fr) with six labelled claims and a render variant, and
 * the tenant's defaults configured: two layers per resolve (tenant defaults, stored design). Each resolve names its
 * design by binding and prefers `de-CH` (looked up to `de`). Reads are not audited (the registry's default) unless
 * BENCH_AUDIT_READS=1. BENCH_RESOLVE_CACHE_ENTRIES sets designs.resolveCache.maxEntries (0: nothing kept). The reader's token, the bodies and each body's ETag go
 * to BENCH_DATA_DIR/resolve.json for the load generator.
 */
const dataDir = benchDataDir();
const DESIGNS = Number(process.env.BENCH_DESIGNS ?? 200);

const database = await createPostgresTestDatabase();
const issuer = await startTestIssuer();
const { platform } = await startBenchPlatform({
  profile: 'test',
  database: { url: database.url, maxPoolSize: 10 },
  migrations: [...platformMigrations, ...designsMigrations],
  overrides: {
    tenancy: { seedDemoTenant: true },
    auth: { issuers: [{ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience }] },
  },
});
const config = Value.Default(DesignsConfigSchema, {
  // BENCH_AUDIT_READS=1: every resolve also writes its audit event (designs.auditReads), to measure that price.
  auditReads: process.env.BENCH_AUDIT_READS === '1',
  ...(process.env.BENCH_RESOLVE_CACHE_ENTRIES === undefined
    ? {}
    : { resolveCache: { maxEntries: Number(process.env.BENCH_RESOLVE_CACHE_ENTRIES) } }),
  tenantDefaults: {
    demo: { defaultLocale: 'en', backgroundColor: '#1D3557', logoUri: 'https://demo.example/logo.png' },
  },
}) as DesignsConfig;
const app = await createRoleApp(platform, { role: 'designs', title: 'bench', family: 'design' });
registerDesignsRoutes(app, platform, { config });
await app.ready();

const admin = await issuer.sign({ sub: 'bench-admin', roles: ['tenant-admin'] }, { expiresInSeconds: 86_400 });
const reader = await issuer.sign({ sub: 'bench-reader', roles: [] }, { expiresInSeconds: 86_400 });
const authorized = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
const label = (en: string, de: string, fr: string) => [
  { locale: 'en', label: en },
  { locale: 'de', label: de },
  { locale: 'fr', label: fr },
];
const CLAIMS = [
  ['given_name', 'Given name', 'Vorname', 'Prénom'],
  ['family_name', 'Family name', 'Nachname', 'Nom'],
  ['birthdate', 'Date of birth', 'Geburtsdatum', 'Date de naissance'],
  ['student_id', 'Student ID', 'Matrikelnummer', "Numéro d'étudiant"],
  ['faculty', 'Faculty', 'Fakultät', 'Faculté'],
  ['valid_until', 'Valid until', 'Gültig bis', "Valable jusqu'au"],
] as const;

/** The designs and the resolve bodies, seeded through the server's own socket (bench/lib/setup-client.ts). */
async function seed(request: SetupClient): Promise<void> {
  const bodies: string[] = [];
  for (let i = 0; i < DESIGNS; i++) {
    const vct = benchVct(i);
    const created = await request({
      method: 'POST',
      url: '/api/v1/designs/credentials',
      headers: authorized(admin),
      payload: {
        bindings: [{ key: 'VCT', value: vct }],
        alias: `Student card ${i}`,
        hostingMode: 'LOCAL',
        displays: [
          { locale: 'en', name: 'Student card', description: 'Proof of enrolment' },
          {
            locale: 'de',
            name: 'Studierendenausweis',
            description: 'Nachweis der Immatrikulation',
            textColor: '#FFFFFF',
          },
          { locale: 'fr', name: 'Carte étudiante', description: "Preuve d'inscription" },
        ],
        claims: CLAIMS.map(([name, en, de, fr], order) => ({
          path: [{ kind: 'Property', name }],
          labels: label(en, de, fr),
          mandatory: order < 2,
          order: order + 1,
          valueKind: name.includes('date') || name === 'valid_until' ? 'DATE' : 'STRING',
          widgetHint: name.includes('date') || name === 'valid_until' ? 'DATE' : 'TEXT',
        })),
      },
    });
    if (created.statusCode !== 201) throw new Error(`seeding failed: ${created.statusCode} ${created.body}`);
    await request({
      method: 'POST',
      url: '/api/v1/designs/render/variants',
      headers: authorized(admin),
      payload: {
        designId: created.json().id,
        renderTarget: 'SIMPLE_CARD',
        name: 'Card',
        locales: [],
        priority: 0,
        claimPaths: ['given_name', 'family_name', 'student_id'],
      },
    });
    bodies.push(resolveRequestBody(vct));
  }
  const etags: string[] = [];
  for (const body of bodies) {
    const res = await request({
      method: 'POST',
      url: '/api/v1/designs/credentials/resolve',
      headers: authorized(reader),
      payload: body,
    });
    if (res.statusCode !== 200) throw new Error(`resolve failed: ${res.statusCode} ${res.body}`);
    etags.push(String(res.headers.etag));
  }
  await writeFile(join(dataDir, 'resolve.json'), JSON.stringify({ token: reader, bodies, etags }));
}

await serveAfterSetup(
  app,
  seed,
  () => platform.close(),
  () => issuer.close(),
  () => database.drop(),
);
