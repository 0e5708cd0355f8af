import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serverInDataDir } from '../../../bench/lib/server-setup.js';
import type { Scenario, ScenarioSetup, SetupContext } from '../../../bench/lib/types.js';

/**
 * POST /api/v1/designs/credentials/resolve over HTTP against a designs role app on PostgreSQL
 * (servers/design-resolve.ts in this package), 50 connections: bearer JWT, tenant, rate limit, the command bus with
 * its policy decision, one batched read of the design's ETag inputs by binding (id, revision, update time, variants'
 * ids and update times), and the resolved design the process keeps for them (commands/resolve-cache.ts; the
 * seeding's resolves filled it) sent as the bytes serialised once. Each request resolves the next of 200 designs.
 * Compared with the bare Fastify route. `design-resolve-uncached` below measures the same with nothing kept: the
 * design and its variants read, the layers merged with the BCP-47 lookup over three locales, hints, ETag and
 * serialisation on every request.
 */
export const designResolve: Scenario = {
  name: 'design-resolve',
  description:
    'POST /api/v1/designs/credentials/resolve by binding (JWT, policy, 2 layers, 3 locales, ETag) on PostgreSQL',
  kind: 'http',
  baseline: 'bare-route',
  // Per core: on a shared two-core machine the throughput of both is bounded by the load generator and by whatever
  // else runs; requests per CPU second of the server are what this code decides.
  goal: {
    minRatio: 0.25,
    basis: 'per-core',
    text: 'resolves per CPU second at least 25% of the bare route, 50 connections',
  },
  connections: 50,
  setup: (context) => resolveSetup(context, false),
};

/** The same resolve with the process keeping no resolved design (designs.resolveCache.maxEntries 0); no goal. */
export const designResolveUncached: Scenario = {
  name: 'design-resolve-uncached',
  description: 'the same resolve with no resolved design kept: read in full, merged and serialised each time',
  kind: 'http',
  baseline: 'bare-route',
  connections: 50,
  setup: (context) => resolveSetup(context, false, { BENCH_RESOLVE_CACHE_ENTRIES: '0' }),
};

/**
 * The same resolve carrying the current ETag in If-None-Match: the request pipeline, the command and the read of the
 * ETag's inputs as above (no document is read, parsed or merged; the kept ETag is not hashed again), and the answer
 * is a 304 without a body.
 */
export const designResolve304: Scenario = {
  name: 'design-resolve-304',
  description: 'the same resolve with If-None-Match holding the current ETag: 304, no body',
  kind: 'http',
  baseline: 'bare-route',
  goal: {
    minRatio: 0.4,
    basis: 'per-core',
    text: 'conditional resolves per CPU second at least 40% of the bare route, 50 connections',
  },
  connections: 50,
  setup: (context) => resolveSetup(context, true),
};

/**
 * The floor of both (no goal): the same requests to plain Fastify answering with the same headers, a 304 or a body
 * of the resolve's size, with no platform and no registry (servers/design-resolve-floor.ts). What the request's shape
 * (a POST with a JSON body, its headers) costs before any of this code runs.
 */
export const designResolveFloor: Scenario = {
  name: 'design-resolve-floor',
  description: 'the resolve requests against plain Fastify: JSON body parsed, ETag, a body of the same size',
  kind: 'http',
  baseline: 'bare-route',
  connections: 50,
  setup: (context) => resolveSetup(context, false, {}, 'design-resolve-floor'),
};

export const designResolve304Floor: Scenario = {
  name: 'design-resolve-304-floor',
  description: 'the conditional resolve requests against plain Fastify: JSON body parsed, 304 with ETag',
  kind: 'http',
  baseline: 'bare-route',
  connections: 50,
  setup: (context) => resolveSetup(context, true, {}, 'design-resolve-floor'),
};

function resolveSetup(
  context: SetupContext,
  conditional: boolean,
  env: Record<string, string> = {},
  server = 'design-resolve',
): Promise<ScenarioSetup> {
  return serverInDataDir(
    `../../packages/designs/bench/servers/${server}`,
    context,
    { readyTimeoutMs: 180_000, env },
    async (child, dataDir) => {
      const { token, bodies, etags } = JSON.parse(await readFile(join(dataDir, 'resolve.json'), 'utf8')) as {
        token: string;
        bodies: string[];
        etags: string[];
      };
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      return {
        url: child.url,
        // The conditional resolve answers 304 Not Modified: that is its success.
        ...(conditional ? { expectedStatus: 304 } : {}),
        // One request per design, built by the load generator once rather than on every send (setupRequest): the
        // generator shares the machine with the server, and the baseline's requests are built once too.
        requests: bodies.map((body, i) => ({
          method: 'POST',
          path: '/api/v1/designs/credentials/resolve',
          headers: conditional ? { ...headers, 'if-none-match': etags[i]! } : headers,
          body,
        })),
      };
    },
  );
}
