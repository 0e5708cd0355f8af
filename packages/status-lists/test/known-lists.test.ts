import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { EntryUpdater } from '../src/entries/entry-updater.js';
import { allocate, call, createList, startBed, TENANT, type Bed } from './support.js';

/**
 * entries/known-lists.ts: an updater plans a batch on what it last read or wrote of a list, and only a write at that
 * version stands. Two updaters over one database are two replicas; their changes here carry no audit event, so a
 * plan on stale knowledge that would write nothing is the case the version check must still catch.
 */
describe.each(DATABASE_KINDS)('changes planned on what an updater knew (%s)', (kind) => {
  let bed: Bed;
  beforeAll(async () => {
    bed = await startBed(kind);
  });
  afterAll(() => bed?.close());

  const statusOf = async (listId: string, index: number) =>
    (
      (await call(bed.app, 'GET', `/vc/status-lists/${listId}/entries/${index}`, bed.tokens.admin)).json() as {
        status: string;
      }
    ).status;

  it('does not answer from what it knew once another writer moved the list', async () => {
    await createList(bed, 'known-a', { statusPurpose: 'suspension', oauthStatusList: { bitsPerStatus: 2 } });
    const { index } = await allocate(bed, 'known-a');
    const db = bed.t.platform.db;
    const clock = bed.t.platform.clock;
    const [one, other] = [new EntryUpdater({ db, clock }), new EntryUpdater({ db, clock })];
    const change = (status: string) => ({ listId: 'known-a', index, status });
    expect((await one.update(TENANT, change('suspended'))).old).toBe(0);
    expect((await other.update(TENANT, change('valid'))).old).toBe(2);
    // `one` remembers the entry suspended: a plan on that alone would write nothing and answer "no change".
    const again = await one.update(TENANT, change('suspended'));
    expect([again.old, again.value]).toEqual([0, 2]);
    expect(await statusOf('known-a', index)).toBe('suspended');
    // And from what it wrote last, without a read in between, it goes on.
    expect((await one.update(TENANT, change('valid'))).old).toBe(2);
    expect(await statusOf('known-a', index)).toBe('valid');
  });
});
