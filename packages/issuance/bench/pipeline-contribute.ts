import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serverInDataDir } from '../../../bench/lib/server-setup.js';
import type { Scenario } from '../../../bench/lib/types.js';

/**
 * POST /api/oid4vci/v1/backend/sessions/{correlationId}/attributes over HTTP against an issuance role app on
 * PostgreSQL (servers/pipeline-contribute.ts), 50 connections: bearer JWT, tenant, policy, one group of 10
 * attributes each sealed (envelope encryption, a fresh data key per value), then one statement that locks the session
 * row, checks it is what completeness and the state move were decided from, inserts the rows, moves the state and
 * stages the audit event (packages/issuance/README.md, Bench), and the audit chain's append. Each request goes to the
 * next of 200 sessions, so that 50 connections contribute to 50 sessions at once (the sessions' own contributors, not
 * one session under 50 writers).
 */
/** The request body of every contribution: one group of 10 attributes (also the floor's, pipeline-contribute-floor.ts). */
export const contributionBody = JSON.stringify({
  groups: [
    {
      contributorId: 'registry',
      phase: 'OID4VCI_START',
      attributes: Array.from({ length: 10 }, (_, i) => ({
        path: i === 0 ? 'person.given_name' : `person.attribute_${i}`,
        value: `value ${i}`,
      })),
    },
  ],
});

export const pipelineContribute: Scenario = {
  name: 'pipeline-contribute',
  description: 'POST .../sessions/{id}/attributes, one group of 10 attributes, sealed, audited, on PostgreSQL',
  kind: 'http',
  baseline: 'bare-route',
  goal: { minRatio: 0.15, text: 'contributions per second at least 15% of the bare route, 50 connections' },
  connections: 50,
  setup: (context) =>
    serverInDataDir(
      '../../packages/issuance/bench/servers/pipeline-contribute',
      context,
      { readyTimeoutMs: 180_000 },
      async (child, dataDir) => {
        const { token, sessions } = JSON.parse(await readFile(join(dataDir, 'contribute.json'), 'utf8')) as {
          token: string;
          sessions: string[];
        };
        let next = 0;
        const body = contributionBody;
        return {
          url: child.url,
          requests: [
            {
              method: 'POST',
              path: `/api/oid4vci/v1/backend/sessions/${sessions[0]}/attributes`,
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body,
              setupRequest: (request) => ({
                ...request,
                path: `/api/oid4vci/v1/backend/sessions/${sessions[next++ % sessions.length]}/attributes`,
              }),
            },
          ],
        };
      },
    ),
};
