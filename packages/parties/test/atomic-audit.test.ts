import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { startPartyBed, unique, type PartyBed } from './support/party-bed.js';

/**
 * Issue 13 §7 for the party API: a write commits with its audit event (staged in the same unit of work, then
 * chained), and a write the unit of work refuses changes nothing and leaves nothing staged.
 */
describe.each(DATABASE_KINDS)('party writes and their audit events (%s)', (kind) => {
  let bed: PartyBed;
  beforeAll(async () => {
    bed = await startPartyBed(kind);
  }, 120_000);
  afterAll(async () => bed?.close());

  const events = async (commandId: string) =>
    (await bed.t.platform.audit.query({ tenantId: 'alpha', commandId, limit: 500 })).events;
  const staged = async () => (await bed.superuser('SELECT count(*)::int AS n FROM audit_pending'))[0]!.n as number;

  it('chains the event of a committed write under the id it was staged with, and keeps nothing staged', async () => {
    const id = await bed.create('groups', { name: unique('Audited') });
    await bed.t.platform.audit.whenIdle();
    const mine = (await events('party.groups.create')).filter((e) => e.businessIds.partyId === id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ result: 'success' });
    expect(await staged()).toBe(0);
  });

  it('leaves nothing of a write its unit of work refused, and records the refusal', async () => {
    const before = (await bed.superuser('SELECT count(*)::int AS n FROM parties'))[0]!.n;
    const refused = await bed.call('POST', '/persons', {
      body: { displayName: 'Nowhere', organizationUnitId: '00000000-0000-4000-8000-000000000000' },
    });
    expect(refused.status).toBe(400);
    await bed.t.platform.audit.whenIdle();
    expect((await bed.superuser('SELECT count(*)::int AS n FROM parties'))[0]!.n).toBe(before);
    expect(await staged()).toBe(0);
    const failures = (await events('party.persons.create')).filter((e) => e.result === 'failure');
    expect(failures.length).toBeGreaterThanOrEqual(1);
    expect(await bed.t.platform.audit.verify('alpha')).toMatchObject({ ok: true });
  });
});
