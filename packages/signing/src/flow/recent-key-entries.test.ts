import { ManualClock } from '@tessera/platform';
import { describe, expect, it } from 'vitest';
import type { KeyEntryRecord } from '../domain/key-entry.js';
import { RecentKeyEntries } from './recent-key-entries.js';

/** Key entries kept by the read-only steps (issue 21 bench): for their lifetime, per tenant, never a missing one. */
const entry = (kid: string): KeyEntryRecord => ({
  kid,
  providerId: 'software',
  providerKid: 'p',
  keyKind: 'RSA',
  publicKeySpki: Buffer.from('spki'),
  certificate: null,
  certificateChain: [],
  access: { subjectId: 's', accessLevel: 'TENANT', roleRestrictions: [] },
  createdAt: new Date(),
});

describe('recent key entries', () => {
  it('reads an entry once per lifetime and tenant, a missing one every time, and again once forgotten', async () => {
    const clock = new ManualClock(new Date('2026-11-26T10:00:00Z'));
    const recent = new RecentKeyEntries(clock, 5000);
    const reads: string[] = [];
    const load = (tenant: string, kid: string, found = true) =>
      recent.read(tenant, kid, async () => {
        reads.push(`${tenant}/${kid}`);
        return found ? entry(kid) : null;
      });
    expect((await load('a', 'k'))?.kid).toBe('k');
    expect((await load('a', 'k'))?.kid).toBe('k');
    await load('b', 'k');
    expect(await load('a', 'missing', false)).toBeNull();
    expect(await load('a', 'missing', false)).toBeNull();
    expect(reads).toEqual(['a/k', 'b/k', 'a/missing', 'a/missing']);
    clock.advance(5);
    await load('a', 'k');
    recent.forget('a', 'k');
    await load('a', 'k');
    expect(reads.slice(4)).toEqual(['a/k', 'a/k']);
  });

  it('keeps nothing with a lifetime of 0', async () => {
    const recent = new RecentKeyEntries(new ManualClock(), 0);
    let reads = 0;
    for (let i = 0; i < 3; i++) await recent.read('a', 'k', async () => (reads++, entry('k')));
    expect(reads).toBe(3);
  });
});
