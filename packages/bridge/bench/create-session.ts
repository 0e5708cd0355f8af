import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serverInDataDir } from '../../../bench/lib/server-setup.js';
import type { Scenario, ScenarioSetup, SetupContext } from '../../../bench/lib/types.js';

/**
 * POST /auth/oid4vp/sessions over HTTP against a bridge role app (bench/servers/bridge-sessions.ts in this
 * package): bearer validation, the command bus and its audit event, an ECDH-ES key pair and its sealing, the
 * request object signed through the key manager, the QR PNG, one insert. Compared with the platform's public route.
 * Issue 22: on PostgreSQL at least 5% of the public route per core (a portal at a busy institution creates
 * hundreds per second at peak); the PGlite row is measured beside it without a goal.
 */
export const bridgeCreateSession: Scenario = {
  name: 'bridge-create-session',
  description:
    'POST /auth/oid4vp/sessions (bearer, audit, ECDH-ES key, signed request object, QR PNG, insert) on PostgreSQL',
  kind: 'http',
  baseline: 'platform-public-route',
  goal: { minRatio: 0.05, basis: 'per-core', text: 'sessions per CPU second at least 5% of the public route' },
  connections: 10,
  setup: (context) => sessionSetup('postgres', context),
};

export const bridgeCreateSessionPglite: Scenario = {
  name: 'bridge-create-session-pglite',
  description: 'the same session creation on PGlite (embedded, one process: the development profile)',
  kind: 'http',
  baseline: 'platform-public-route',
  connections: 10,
  setup: (context) => sessionSetup('pglite', context),
};

function sessionSetup(database: 'postgres' | 'pglite', context: SetupContext): Promise<ScenarioSetup> {
  // This server lives with the bridge, beside bench/servers/.
  return serverInDataDir(
    '../../packages/bridge/bench/servers/bridge-sessions',
    context,
    { env: { BENCH_BRIDGE_DATABASE: database }, readyTimeoutMs: 180_000 },
    async (child, dataDir) => {
      const token = (await readFile(join(dataDir, 'token.txt'), 'utf8')).trim();
      return {
        url: child.url,
        requests: [
          {
            method: 'POST',
            path: '/auth/oid4vp/sessions',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ queryId: 'wallet-login', oauthSessionId: 'bench' }),
          },
        ],
      };
    },
  );
}
