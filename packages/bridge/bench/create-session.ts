import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serverInDataDir } from '../../../bench/lib/server-setup.js';
import type { Scenario } from '../../../bench/lib/types.js';

/**
 * POST /auth/oid4vp/sessions over HTTP against a bridge role app (bench/servers/bridge-sessions.ts in this
 * package): bearer validation, the command bus and its audit event, an ECDH-ES key pair and its sealing, the
 * request object signed through the key manager, the QR PNG, one insert. Compared with the platform's public route.
 */
export const bridgeCreateSession: Scenario = {
  name: 'bridge-create-session',
  description:
    'POST /auth/oid4vp/sessions (bearer, audit, ECDH-ES key, signed request object, QR PNG, insert) on PGlite',
  kind: 'http',
  baseline: 'platform-public-route',
  connections: 10,
  setup: (context) =>
    // This server lives with the bridge, beside bench/servers/.
    serverInDataDir('../../packages/bridge/bench/servers/bridge-sessions', context, {}, async (child, dataDir) => {
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
    }),
};
