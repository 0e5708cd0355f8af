import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serverInDataDir } from '../../../bench/lib/server-setup.js';
import type { Scenario, ScenarioSetup, SetupContext } from '../../../bench/lib/types.js';

const SERVER = '../../packages/status-lists/bench/servers/status-lists';

/** A status-lists server in one mode (servers/status-lists.ts); what it wrote for the load generator. */
function statusListsSetup(
  mode: 'allocate' | 'update' | 'read' | 'publish-load',
  context: SetupContext,
  describe: (url: string, data: { token: string; indexes: number[] }) => Omit<ScenarioSetup, 'teardown' | 'serverPid'>,
): Promise<ScenarioSetup> {
  return serverInDataDir(
    SERVER,
    context,
    { env: { BENCH_STATUS_LISTS_MODE: mode }, readyTimeoutMs: 180_000 },
    async (child, dataDir) =>
      describe(
        child.url,
        JSON.parse(await readFile(join(dataDir, 'status-lists.json'), 'utf8')) as { token: string; indexes: number[] },
      ),
  );
}

/**
 * POST /vc/status-lists/{listId}/entries on PostgreSQL, 50 connections: bearer JWT, policy, the counter moved in
 * one UPDATE (every allocation of the list serialized on its row), the index permutation, one audit event.
 */
export const statusListAllocate: Scenario = {
  name: 'status-list-allocate',
  description: 'POST /vc/status-lists/{id}/entries (JWT, policy, counter UPDATE, permutation, audit) on PostgreSQL',
  kind: 'http',
  baseline: 'bare-route',
  goal: { minRatio: 0.2, basis: 'per-core', text: 'allocations per CPU second at least 20% of the bare route' },
  replicable: true,
  connections: 50,
  setup: (context) =>
    statusListsSetup('allocate', context, (url, { token }) => ({
      url,
      requests: [
        {
          method: 'POST',
          path: '/vc/status-lists/bench-allocate/entries',
          headers: { authorization: `Bearer ${token}` },
        },
      ],
    })),
};

/**
 * Set one entry and make it visible: each connection repeats PUT /vc/status-lists/{id}/entries/{index} (suspend
 * or reinstate one of 1,000 allocated entries: list row locked, one byte written, version moved, audit) and GET
 * /status-lists/{id} (the publication as configured by default: held for publicationRefreshSeconds, 1 s, then
 * signed again when it is older than the list: 131,072 entries of 2 bits compressed and signed ES256; concurrent
 * reads share one signing). Throughput counts both requests.
 */
export const statusListUpdate: Scenario = {
  name: 'status-list-update',
  description: 'PUT an entry + GET the publication (re-signed at most once a second, 131,072 x 2 bits) on PostgreSQL',
  kind: 'http',
  baseline: 'bare-route',
  goal: {
    minRatio: 0.2,
    basis: 'per-core',
    text: 'requests per CPU second (update, then read the list) at least 20% of the bare route',
  },
  replicable: true,
  connections: 50,
  setup: (context) =>
    statusListsSetup('update', context, (url, { token, indexes }) => {
      let next = 0;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      return {
        url,
        requests: [
          {
            method: 'PUT',
            path: '/vc/status-lists/bench-update/entries/0',
            headers,
            setupRequest: (request) => {
              const n = next++;
              return {
                ...request,
                path: `/vc/status-lists/bench-update/entries/${indexes[n % indexes.length]}`,
                body: JSON.stringify({ status: Math.floor(n / indexes.length) % 2 === 0 ? 'suspended' : 'valid' }),
              };
            },
          },
          { method: 'GET', path: '/status-lists/bench-update' },
        ],
      };
    }),
};

/**
 * A status check: GET /status-lists/{id} of an unchanged publication (the list of status-list-update, 131,072 x 2
 * bits, 1,000 entries allocated, never changed during the run), as relying parties fetch it. No goal: the figure
 * docs/scaling.md reads for the cost of a status check at the origin, without an HTTP cache in front.
 */
export const statusListRead: Scenario = {
  name: 'status-list-read',
  description: 'GET /status-lists/{id}: the signed publication of an unchanged list (131,072 x 2 bits) on PostgreSQL',
  kind: 'http',
  baseline: 'bare-route',
  replicable: true,
  connections: 50,
  setup: (context) =>
    statusListsSetup('read', context, (url) => ({
      url,
      requests: [{ method: 'GET', path: '/status-lists/bench-update' }],
    })),
};

/**
 * The event loop while ten million entries are published over and over: GET /health (the cheapest route of the
 * app) under load while the server's own loop allocates, revokes and re-signs a 10,000,000-entry list (1% revoked)
 * back to back. Read its p99 against the bare route's: compression and signing run on the thread pool.
 */
export const statusListHealthDuringPublish: Scenario = {
  name: 'status-list-health-during-publish',
  description: 'GET /health while the same process re-signs a 10M-entry list back to back (p99 is the figure)',
  kind: 'http',
  baseline: 'bare-route',
  connections: 10,
  setup: (context) =>
    statusListsSetup('publish-load', context, (url) => ({ url, requests: [{ method: 'GET', path: '/health' }] })),
};
