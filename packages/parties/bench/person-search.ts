import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serverInDataDir } from '../../../bench/lib/server-setup.js';
import type { Scenario, ScenarioSetup, SetupContext } from '../../../bench/lib/types.js';
import type { SearchHandover } from './search-queries.js';

/** Seeding a million persons the first time takes minutes (bench/seed-persons.ts); later runs reuse them. */
const READY_TIMEOUT_MS = 30 * 60_000;

/**
 * GET /api/party/v1/persons?q=<family name> over 1,000,000 persons on PostgreSQL, 50 connections: bearer JWT,
 * tenant, policy, the word-index search under row-level security, the audit event of the read. Compared with the
 * same statement through the driver in the same run (issue 20: at least half its throughput; p99 under 50 ms).
 */
export const partyPersonSearch: Scenario = {
  name: 'party-person-search',
  description: 'GET /api/party/v1/persons?q= over 1,000,000 persons (JWT, policy, word index under RLS, audit)',
  kind: 'http',
  baseline: 'party-person-search-driver',
  goal: {
    minRatio: 0.5,
    maxP99Ms: 50,
    text: 'searches per second at least half the same query through pg; p99 under 50 ms at 50 connections',
  },
  connections: 50,
  setup: (context) => searchSetup('person-search', context),
};

/** The same statement through `pg` behind a bare route: the ceiling of the search on the machine in this run. */
export const partyPersonSearchDriver: Scenario = {
  name: 'party-person-search-driver',
  description: 'baseline: the same search statement through pg (same role, RLS, pool) behind a bare route',
  kind: 'http',
  connections: 50,
  setup: (context) => searchSetup('person-search-driver', context),
};

/** A search server's setup: it writes search.json; each request is the next search path. */
function searchSetup(server: string, context: SetupContext): Promise<ScenarioSetup> {
  return serverInDataDir(
    `../../packages/parties/bench/servers/${server}`,
    context,
    { readyTimeoutMs: READY_TIMEOUT_MS },
    async (child, dataDir) => {
      const { token, paths } = JSON.parse(await readFile(join(dataDir, 'search.json'), 'utf8')) as SearchHandover;
      let next = 0;
      return {
        url: child.url,
        requests: [
          {
            method: 'GET',
            path: paths[0]!,
            ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
            setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }),
          },
        ],
      };
    },
  );
}
