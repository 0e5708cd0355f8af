import { serverInDataDir } from '../../../bench/lib/server-setup.js';
import type { Scenario } from '../../../bench/lib/types.js';
import { contributionBody } from './pipeline-contribute.js';

/**
 * Reference for issue 18 (no goal): servers/pipeline-contribute-floor.ts, the same request body parsed, its 10
 * values sealed under one data key and written by one autocommit statement behind a bare Fastify route; no
 * transaction, no session state, no audit, no token, no policy. Its ratio to the bare route is more than any
 * implementation of `pipeline-contribute` can reach in the same run.
 */
export const pipelineContributeFloor: Scenario = {
  name: 'pipeline-contribute-floor',
  description: 'floor: the body parsed, 10 values sealed under one data key, one autocommit INSERT (reference)',
  kind: 'http',
  baseline: 'bare-route',
  connections: 50,
  setup: (context) =>
    serverInDataDir('../../packages/issuance/bench/servers/pipeline-contribute-floor', context, {}, async (child) => {
      let next = 0;
      const path = (i: number) => `/api/oid4vci/v1/backend/sessions/session-${i % 200}/attributes`;
      return {
        url: child.url,
        requests: [
          {
            method: 'POST',
            path: path(0),
            headers: { 'content-type': 'application/json' },
            body: contributionBody,
            setupRequest: (request) => ({ ...request, path: path(next++) }),
          },
        ],
      };
    }),
};
