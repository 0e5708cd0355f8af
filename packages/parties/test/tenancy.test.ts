import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { startPartyBed, unique, type PartyBed } from './support/party-bed.js';

/**
 * Tenant isolation (001 §5): reads see the resolved tenant only, writes land in it, and X-Tenant-ID from a caller
 * that is not trusted infrastructure changes nothing (it is logged as claimed_tenant_id and used for nothing else).
 */
describe.each(DATABASE_KINDS)('party tenancy (%s)', (kind) => {
  let bed: PartyBed;
  let personA: string;
  let groupA: string;
  let groupB: string;
  beforeAll(async () => {
    bed = await startPartyBed(kind);
    personA = await bed.create('persons', { displayName: 'Alpha Person', familyName: 'Isolated' });
    groupA = await bed.create('groups', { name: unique('Alpha Group') });
    groupB = await bed.create('groups', { name: unique('Beta Group') }, bed.tokens.adminB);
  }, 120_000);
  afterAll(async () => bed?.close());

  it('shows tenant B none of tenant A’s parties, by id, in lists, in search or polymorphically', async () => {
    const asB = { token: bed.tokens.readerB };
    expect((await bed.call('GET', `/persons/${personA}`, asB)).status).toBe(404);
    expect((await bed.call('GET', `/parties/${personA}`, asB)).status).toBe(404);
    expect((await bed.call('GET', `/groups/${groupA}/members`, asB)).status).toBe(404);
    expect((await bed.call('GET', `/parties/${personA}/relationships`, asB)).status).toBe(404);
    for (const path of ['/persons?limit=200', '/parties?limit=200', '/groups?limit=200', '/persons?q=isolated']) {
      const res = await bed.call('GET', path, asB);
      expect(res.status).toBe(200);
      const ids = res.body.data.map((p: { id: string }) => p.id);
      expect(ids).not.toContain(personA);
      expect(ids).not.toContain(groupA);
    }
    expect((await bed.call('GET', '/persons?q=isolated')).body.data.map((p: { id: string }) => p.id)).toEqual([
      personA,
    ]);
  });

  it('lets tenant B neither change nor delete A’s parties, nor add them to its groups or relationships', async () => {
    const asB = { token: bed.tokens.adminB };
    expect((await bed.call('PUT', `/persons/${personA}`, { ...asB, body: { displayName: 'Taken' } })).status).toBe(404);
    expect((await bed.call('DELETE', `/persons/${personA}`, asB)).status).toBe(404);
    expect((await bed.call('PUT', `/groups/${groupB}/members/${personA}`, asB)).status).toBe(404);
    const replace = await bed.call('PUT', `/groups/${groupB}/members`, { ...asB, body: { members: [personA] } });
    expect(replace).toMatchObject({ status: 400, body: { field: 'members.0' } });
    expect(
      (await bed.call('POST', `/groups`, { ...asB, body: { name: unique('B2'), members: [groupA] } })).status,
    ).toBe(400);
    const personB = await bed.create('persons', { displayName: 'Beta Person' }, bed.tokens.adminB);
    const relation = await bed.call('POST', '/relationships', {
      ...asB,
      body: { fromPartyId: personB, toPartyId: personA, relationshipType: 'same_entity' },
    });
    expect(relation).toMatchObject({ status: 400, body: { field: 'toPartyId' } });
    expect(
      (
        await bed.call('POST', `/parties/${personA}/addresses/electronic`, {
          ...asB,
          body: { addressType: 'EMAIL', value: 'x@beta.example' },
        })
      ).status,
    ).toBe(404);
    // And tenant A's group cannot take B's party either.
    expect((await bed.call('PUT', `/groups/${groupA}/members/${personB}`)).status).toBe(404);

    const rows = await bed.superuser(
      `SELECT count(*)::int AS n FROM party_group_members WHERE member_id = $1 OR group_id = $2`,
      [personA, groupB],
    );
    expect(rows[0]!.n).toBe(0);
    const stored = await bed.superuser('SELECT display_name, deleted_at FROM parties WHERE id = $1', [personA]);
    expect(stored[0]).toMatchObject({ display_name: 'Alpha Person', deleted_at: null });
  });

  it('ignores X-Tenant-ID from a caller that is not trusted infrastructure, and logs it as claimed_tenant_id', async () => {
    const spoofWrite = await bed.call('POST', '/persons', {
      body: { displayName: 'Spoofed Write' },
      headers: { 'x-tenant-id': 'beta' },
    });
    expect(spoofWrite.status).toBe(201);
    const rows = await bed.superuser('SELECT tenant_id FROM parties WHERE id = $1', [spoofWrite.body.id]);
    expect(rows[0]!.tenant_id).toBe('alpha');

    const spoofRead = await bed.call('GET', `/persons/${personA}`, {
      token: bed.tokens.readerB,
      headers: { 'x-tenant-id': 'alpha' },
    });
    expect(spoofRead.status).toBe(404);
    const spoofList = await bed.call('GET', '/parties?limit=200', {
      token: bed.tokens.readerB,
      headers: { 'x-tenant-id': 'alpha' },
    });
    expect(spoofList.body.data.map((p: { id: string }) => p.id)).not.toContain(personA);
    // Without a token the default tenant is not alpha either: the header does not name one.
    expect(
      (await bed.call('GET', `/persons/${personA}`, { token: null, headers: { 'x-tenant-id': 'alpha' } })).status,
    ).toBe(401);

    await new Promise((resolve) => setTimeout(resolve, 1100)); // the access log is flushed every second
    const logged = bed.t.logs
      .records()
      .filter(
        (r) => r.claimed_tenant_id === 'alpha' && r.tenant_id === 'beta' && r.route === '/api/party/v1/persons/:id',
      );
    expect(logged.length).toBeGreaterThan(0);
  });
});
