import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serverInDataDir } from '../../../bench/lib/server-setup.js';
import type { ScenarioSetup, Scenario, SetupContext } from '../../../bench/lib/types.js';

/**
 * POST /api/external/v1/reconciliation/lookup over HTTP against a bridge role app on PostgreSQL
 * (bench/servers/reconciliation-lookup.ts in this package), 50 connections: bearer JWT validation (RS256, the
 * API's own audience), client projection and rate limit, the command bus, the HMAC index query (concurrent lookups
 * batched per tenant), the identity's sealed claims opened, its auxiliary categories, and one audit event
 * (external_api_lookup) per lookup. Each
 * request looks up the next of 1000 identities. Issue 22: judged per core against its floor measured in the same
 * run (below); the floor's row gives the ratio to the bare Fastify route. p99 is in the report.
 */
export const reconciliationLookup: Scenario = {
  name: 'reconciliation-lookup',
  description:
    'POST /api/external/v1/reconciliation/lookup (JWT, projection, HMAC index, sealed claims, audit) on PostgreSQL',
  kind: 'http',
  baseline: 'reconciliation-lookup-floor',
  goal: { minRatio: 0.5, basis: 'per-core', text: 'lookups per CPU second at least half the floor, 50 connections' },
  connections: 50,
  // This server lives with the bridge, beside bench/servers/; seeding its identities takes a while.
  setup: (context) => lookupSetup('../../packages/bridge/bench/servers/reconciliation-lookup', context),
};

/**
 * The floor of the lookup (bench/servers/lookup-floor.ts): one batched statement that reads the identities and
 * inserts their audit rows, behind a bare Fastify route. The ceiling of any implementation in this run.
 */
export const reconciliationLookupFloor: Scenario = {
  name: 'reconciliation-lookup-floor',
  description: 'floor: bare route, bearer compared as a string, batched read + audit insert statement (reference)',
  kind: 'http',
  baseline: 'bare-route',
  connections: 50,
  setup: (context) => lookupSetup('lookup-floor', context),
};

/** A lookup server's setup: it writes lookup.json ({ token, bodies }); each request posts the next body. */
function lookupSetup(server: string, context: SetupContext): Promise<ScenarioSetup> {
  return serverInDataDir(server, context, { readyTimeoutMs: 180_000 }, async (child, dataDir) => {
    const { token, bodies } = JSON.parse(await readFile(join(dataDir, 'lookup.json'), 'utf8')) as {
      token: string;
      bodies: string[];
    };
    let next = 0;
    return {
      url: child.url,
      requests: [
        {
          method: 'POST',
          path: '/api/external/v1/reconciliation/lookup',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length]! }),
        },
      ],
    };
  });
}
