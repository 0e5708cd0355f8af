import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import { serverInDataDir } from '../../../bench/lib/server-setup.js';
import type { Scenario } from '../../../bench/lib/types.js';
import { credentialPairRequests } from './oid4vci-credential.js';

const privateJwk = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as JWK;

/**
 * Reference for issue 19 (no goal): servers/oid4vci-credential-floor.ts answers the very same pair of requests with
 * only what no implementation can leave out (two ES256 verifications, one ES256 signature, a nonce written and
 * spent, a status index allocated) behind bare Fastify routes. Its per-core ratio to `es256-verify-sign` is more than
 * `oid4vci-credential` can reach in the same run.
 */
export const oid4vciCredentialFloor: Scenario = {
  name: 'oid4vci-credential-floor',
  description: 'floor: the same pair with 2 ES256 verifies, 1 ES256 sign and 2 autocommit statements only (reference)',
  kind: 'http',
  baseline: 'es256-verify-sign',
  connections: 20,
  setup: (context) =>
    serverInDataDir(
      '../../packages/oid4vci-issuer/bench/servers/oid4vci-credential-floor',
      context,
      {},
      async (child) => ({
        url: child.url,
        requests: credentialPairRequests(child.url, {
          tokens: Array.from({ length: 20 }, () => randomBytes(32).toString('base64url')),
          dpopKey: privateJwk(),
          holderKey: privateJwk(),
          configuration: 'pid',
        }),
      }),
    ),
};
