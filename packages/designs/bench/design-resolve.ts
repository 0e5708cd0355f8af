import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serverInDataDir } from '../../../bench/lib/server-setup.js';
import type { Scenario, ScenarioSetup, SetupContext } from '../../../bench/lib/types.js';

/**
 * POST /api/v1/designs/credentials/resolve over HTTP against a designs role app on PostgreSQL
 * (servers/design-resolve.ts in this package), 50 connections: bearer JWT, tenant, rate limit, the command bus with
 * its policy decision, one read of the design by binding and its render variants, the layers merged (tenant
 * defaults, stored design) with the BCP-47 lookup over three locales, hints, and the ETag over the canonical JSON.
 * Each request resolves the next of 200 designs. Compared with the bare Fastify route.
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

/**
 * The same resolve carrying the current ETag in If-None-Match: the request pipeline and the command as above, but
 * the read is of the ETag's inputs only (design id, revision, update time, variants' ids and update times; no
 * document is read, parsed or merged), and the answer is a 304 without a body.
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

function resolveSetup(context: SetupContext, conditional: boolean): Promise<ScenarioSetup> {
  return serverInDataDir(
    '../../packages/designs/bench/servers/design-resolve',
    context,
    { readyTimeoutMs: 180_000 },
    async (child, dataDir) => {
      const { token, bodies, etags } = JSON.parse(await readFile(join(dataDir, 'resolve.json'), 'utf8')) as {
        token: string;
        bodies: string[];
        etags: string[];
      };
      let next = 0;
      return {
        url: child.url,
        // The conditional resolve answers 304 Not Modified: that is its success.
        ...(conditional ? { expectedStatus: 304 } : {}),
        requests: [
          {
            method: 'POST',
            path: '/api/v1/designs/credentials/resolve',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            setupRequest: (request) => {
              const i = next++ % bodies.length;
              return {
                ...request,
                body: bodies[i]!,
                ...(conditional ? { headers: { ...request.headers, 'if-none-match': etags[i]! } } : {}),
              };
            },
          },
        ],
      };
    },
  );
}
