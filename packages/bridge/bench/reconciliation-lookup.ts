import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../../../bench/lib/http.js';
import type { Scenario } from '../../../bench/lib/types.js';

/**
 * POST /api/external/v1/reconciliation/lookup over HTTP against a bridge role app on PostgreSQL
 * (bench/servers/reconciliation-lookup.ts in this package), 50 connections: bearer JWT validation (RS256, the
 * API's own audience), client projection and rate limit, the command bus, the HMAC index query (concurrent lookups
 * batched per tenant), the identity's sealed claims opened, its auxiliary categories, and one audit event
 * (external_api_lookup) per lookup. Each
 * request looks up the next of 1000 identities. Compared with the bare Fastify route; p99 is in the report.
 */
export const reconciliationLookup: Scenario = {
  name: 'reconciliation-lookup',
  description:
    'POST /api/external/v1/reconciliation/lookup (JWT, projection, HMAC index, sealed claims, audit) on PostgreSQL',
  kind: 'http',
  baseline: 'bare-route',
  goal: { minRatio: 0.25, text: 'lookups per second at least 25% of the bare route, 50 connections' },
  connections: 50,
  async setup(context) {
    const dataDir = await mkdtemp(join(tmpdir(), 'tessera-bench-reconciliation-'));
    try {
      // spawnServer looks in bench/servers/; this server lives with the bridge.
      const child = await spawnServer('../../packages/bridge/bench/servers/reconciliation-lookup', {
        pin: context.pin,
        cpuProfDir: context.cpuProfDir,
        env: { BENCH_DATA_DIR: dataDir },
        readyTimeoutMs: 180_000,
      });
      const { token, bodies } = JSON.parse(await readFile(join(dataDir, 'lookup.json'), 'utf8')) as {
        token: string;
        bodies: string[];
      };
      let next = 0;
      return {
        url: child.url,
        serverPid: child.pid,
        requests: [
          {
            method: 'POST',
            path: '/api/external/v1/reconciliation/lookup',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length]! }),
          },
        ],
        async teardown() {
          await child.stop();
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    } catch (error) {
      await rm(dataDir, { recursive: true, force: true });
      throw error;
    }
  },
};
