import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { createRoleApp, loadConfig, type RoleApp } from '@tessera/platform';
import { registerStatusListsRoutes, StatusListsConfigSchema } from '../src/index.js';
import {
  allocate,
  call,
  createList,
  listBody,
  published,
  setStatus,
  startBed,
  testConfig,
  type Bed,
} from './support.js';

/** How long the publication is debounced in these tests: long enough that a read right after a change is early. */
const REFRESH_SECONDS = 4;

const statusOf = async (read: () => Promise<string>, index: number) =>
  getListFromStatusListJWT(await read()).getStatus(index);

/** Reads until the entry shows `status`; how long that took (ms). Fails after `limitMs`. */
async function waitForStatus(read: () => Promise<string>, index: number, status: number, limitMs: number) {
  const started = Date.now();
  while ((await statusOf(read, index)) !== status) {
    if (Date.now() - started > limitMs) throw new Error(`entry ${index} still not ${status} after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}

/**
 * The default publication (issue 16 §4: lazy re-signing, debounced by `publicationRefreshSeconds`): a replica
 * answers from the signed form it holds for the interval, so a change shows within it, on this replica and on
 * another one over the same database, and not before the held form's interval is over.
 */
describe('publication debounced by publicationRefreshSeconds (postgres)', () => {
  let bed: Bed;
  let other: RoleApp;
  const config = testConfig({ publicationRefreshSeconds: REFRESH_SECONDS });

  beforeAll(async () => {
    bed = await startBed('postgres', config);
    // A second replica: a role app with a publisher of its own over the same database; the lists it creates have
    // a ttl of one second.
    other = await createRoleApp(bed.t.platform, { role: 'status-lists', title: 'second replica', family: 'oauth' });
    await registerStatusListsRoutes(other, bed.t.platform, { config: testConfig({ ...config, ttlSeconds: 1 }) });
    await other.ready();
  });
  afterAll(async () => {
    await other?.close();
    await bed?.close();
  });

  it('defaults to one second, never longer than the list ttl', () => {
    expect(loadConfig(StatusListsConfigSchema, { env: {} }).publicationRefreshSeconds).toBe(1);
  });

  it('shows a change within the interval on both replicas, and answers from the held form until then', async () => {
    await createList(bed, 'debounced');
    const entry = await allocate(bed, 'debounced');
    const here = () => published(bed, 'debounced');
    const there = async () => (await call(other, 'GET', '/status-lists/debounced', null)).body;
    const before = await here();
    await there();
    await setStatus(bed, 'debounced', entry.index, 'invalid');
    // Right after the change, both replicas still hold the form they signed or found current a moment ago.
    expect(await here()).toBe(before);
    expect(await statusOf(there, entry.index)).toBe(0);
    const limit = (REFRESH_SECONDS + 5) * 1000;
    await waitForStatus(here, entry.index, 1, limit);
    await waitForStatus(there, entry.index, 1, limit);
  });

  it('answers a held form for at most the list ttl when that is shorter than the interval', async () => {
    const created = await call(other, 'POST', '/vc/status-lists', bed.tokens.admin, listBody('short-ttl'));
    expect(created.statusCode).toBe(200);
    const entry = await allocate(bed, 'short-ttl');
    const read = () => published(bed, 'short-ttl');
    expect((await call(bed.app, 'GET', '/status-lists/short-ttl', null)).headers['cache-control']).toBe(
      'public, max-age=1',
    );
    await setStatus(bed, 'short-ttl', entry.index, 'invalid');
    // ttl 1 s < interval 4 s: the change shows once the held form is a second old, well before the interval.
    const tookMs = await waitForStatus(read, entry.index, 1, (REFRESH_SECONDS + 5) * 1000);
    expect(tookMs).toBeLessThan((REFRESH_SECONDS - 1) * 1000);
  });
});
