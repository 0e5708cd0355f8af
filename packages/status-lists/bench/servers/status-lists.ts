import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRoleApp, loadConfig, platformMigrations } from '@tessera/platform';
import { startTestIssuer } from '@tessera/platform/testing';
import { benchDataDir, startBenchPlatform } from '../../../../bench/lib/bench-platform.js';
import { replicaDatabase, replicaRole, sharedAcrossReplicas } from '../../../../bench/lib/replica.js';
import { serveAfterSetup } from '../../../../bench/lib/server-child.js';
import type { SetupClient } from '../../../../bench/lib/setup-client.js';
import { registerStatusListsRoutes, StatusListsConfigSchema, statusListsMigrations } from '../../src/index.js';
import { TEN_MILLION, tenMillionChunks } from '../ten-million-list.js';

/**
 * The status-lists role app for the http scenarios, on PostgreSQL (a fresh database on the machine's server), the
 * whole platform on (bearer JWT, policy, audit of every write, metrics, logs at info). BENCH_STATUS_LISTS_MODE:
 * - `allocate`: one Token Status List of 10,000,000 entries to allocate from;
 * - `update`: a 2-bit suspension list of 131,072 entries with 1,000 entries allocated, to suspend and reinstate;
 * - `read`: the same list, only read (a relying party's status check of an unchanged publication);
 * - `publish-load`: a 10,000,000-entry 1-bit list, 1% revoked, that a loop in this process keeps changing and
 *   publishing again (allocate, revoke, read the publication: a full re-sign each time) while the load generator
 *   measures GET /health: the event loop must stay free while ten million entries are compressed and signed.
 * The administrator's token (and the allocated indexes) go to BENCH_DATA_DIR/status-lists.json.
 * As one of several replicas (`--replicas`, allocate and update), replica 0 creates the database, the token issuer
 * and the lists; the others join its database and trust its issuer.
 */
const mode = process.env.BENCH_STATUS_LISTS_MODE ?? 'allocate';
const dataDir = benchDataDir();
const replica = replicaRole();
if (replica.count > 1 && mode === 'publish-load') throw new Error('publish-load runs as one replica');
const database = await replicaDatabase();
const ownIssuer = replica.index === 0 ? await startTestIssuer() : null;
const issuer = await sharedAcrossReplicas('issuer', async () => ({
  issuer: ownIssuer!.issuer,
  jwksUri: ownIssuer!.jwksUri,
  audience: ownIssuer!.audience,
}));
const { platform } = await startBenchPlatform({
  profile: 'test',
  database: { url: database.url, maxPoolSize: 10 },
  migrations: [...platformMigrations, ...statusListsMigrations],
  overrides: {
    tenancy: { seedDemoTenant: true },
    auth: { issuers: [{ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience }] },
  },
});
// The defaults, except under publish-load, whose loop must sign the 10M-entry list after each change, back to back
// (the debounce would sign it once a second).
const config = loadConfig(StatusListsConfigSchema, {
  env: {},
  overrides: mode === 'publish-load' ? { publicationRefreshSeconds: 0 } : {},
});
const app = await createRoleApp(platform, { role: 'status-lists', title: 'bench', family: 'oauth' });
await registerStatusListsRoutes(app, platform, { config });
await app.ready();
const token = await ownIssuer?.sign(
  { sub: 'bench-admin', tenant_id: 'demo', roles: ['tenant-admin'] },
  {
    expiresInSeconds: 86_400,
  },
);
const headers = { authorization: `Bearer ${token}` };
let stopLoop = false;
let loop: Promise<void> = Promise.resolve();

/** What replica 0 seeds through its own socket before the harness learns its URL (bench/lib/setup-client.ts). */
async function seed(request: SetupClient): Promise<void> {
  const create = async (statusList: Record<string, unknown>) => {
    const response = await request({
      method: 'POST',
      url: '/vc/status-lists',
      headers,
      payload: { statusList: { issuer: config.publicBaseUrl, proofFormat: 'jwt', ...statusList } },
    });
    if (response.statusCode !== 200) throw new Error(`create: ${response.statusCode} ${response.body}`);
  };
  const allocate = async (listId: string): Promise<number> => {
    const response = await request({ method: 'POST', url: `/vc/status-lists/${listId}/entries`, headers });
    if (response.statusCode !== 201) throw new Error(`allocate: ${response.statusCode} ${response.body}`);
    return (response.json() as { index: number }).index;
  };
  let indexes: number[] = [];
  if (mode === 'allocate') {
    await create({ type: 'OAuthStatusList', id: 'bench-allocate', length: TEN_MILLION });
  } else if (mode === 'update' || mode === 'read') {
    await create({
      type: 'OAuthStatusList',
      id: 'bench-update',
      statusPurpose: 'suspension',
      oauthStatusList: { bitsPerStatus: 2 },
    });
    // Allocated concurrently (gathered into few statements): the start-up is not what is measured.
    indexes = await Promise.all(Array.from({ length: 1000 }, () => allocate('bench-update')));
  } else if (mode === 'publish-load') {
    await create({ type: 'OAuthStatusList', id: 'bench-10m', length: TEN_MILLION });
    // 1% revoked, written as storage holds it.
    await platform.db.withTenant('demo', async (sql) => {
      for (const chunk of tenMillionChunks()) {
        await sql.query(`INSERT INTO status_list_chunks (list_id, chunk_no, bytes) VALUES ('bench-10m', $1, $2)`, [
          chunk.chunkNo,
          Buffer.from(chunk.bytes),
        ]);
      }
      await sql.query(`UPDATE status_lists SET version = version + 1 WHERE list_id = 'bench-10m'`);
    });
    loop = (async () => {
      while (!stopLoop) {
        const index = await allocate('bench-10m');
        await request({
          method: 'PUT',
          url: `/vc/status-lists/bench-10m/entries/${index}`,
          headers,
          payload: { status: 1 },
        });
        const published = await request({ method: 'GET', url: '/status-lists/bench-10m' });
        if (published.statusCode !== 200) throw new Error(`publish: ${published.statusCode}`);
      }
    })();
  } else {
    throw new Error(`unknown BENCH_STATUS_LISTS_MODE ${mode}`);
  }
  await writeFile(join(dataDir, 'status-lists.json'), JSON.stringify({ token, indexes }));
}

// The lists, the token and the indexes are replica 0's.
await serveAfterSetup(
  app,
  replica.index === 0 ? seed : async () => {},
  async () => {
    stopLoop = true;
    await loop;
  },
  () => platform.close(),
  async () => ownIssuer?.close(),
  () => database.drop(),
);
