import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { startPartyBed, unique, type PartyBed } from './support/party-bed.js';

/**
 * The resources across party types (001 §4.4): /parties, relationships with the type catalog and validity windows,
 * electronic and physical addresses, identity-to-application bindings.
 */
describe.each(DATABASE_KINDS)('parties, relationships, addresses and bindings (%s)', (kind) => {
  let bed: PartyBed;
  beforeAll(async () => {
    bed = await startPartyBed(kind);
  }, 120_000);
  afterAll(async () => bed?.close());

  it('lists every type at /parties with the partyType, partySubtype, organizationUnitId and origin filters', async () => {
    const origin = unique('poly');
    const unit = await bed.create('organizationunits', { name: unique('Poly Unit'), origin });
    const person = await bed.create('persons', { displayName: 'Poly Person', origin, organizationUnitId: unit });
    const org = await bed.create('organizations', { legalName: unique('Poly Org'), organizationType: 'NGO', origin });
    const service = await bed.create('services', { displayName: 'Poly Service', serviceType: 'API', origin });
    const group = await bed.create('groups', { name: unique('Poly Group'), origin });

    const all = await bed.call('GET', `/parties?origin=${origin}&total=true`, { token: bed.tokens.readerA });
    expect(all.status).toBe(200);
    expect(all.body.pagination.total).toBe(5);
    expect(all.body.data.map((p: { id: string }) => p.id).sort()).toEqual([unit, person, org, service, group].sort());
    expect(Object.keys(all.body.data[0]).sort()).toEqual(
      [
        'createdAt',
        'displayName',
        'id',
        'organizationUnitId',
        'origin',
        'partySubtype',
        'partyType',
        'updatedAt',
      ].sort(),
    );
    const only = async (query: string) =>
      (await bed.call('GET', `/parties?origin=${origin}&${query}`)).body.data.map((p: { id: string }) => p.id);
    expect(await only('partyType=SERVICE')).toEqual([service]);
    expect(await only('partySubtype=NGO')).toEqual([org]);
    expect(await only(`organizationUnitId=${unit}`)).toEqual([person]);
    expect((await bed.call('GET', `/parties?partyType=ALIEN`)).body).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR' });

    const base = await bed.call('GET', `/parties/${org}`);
    expect(base.body).toMatchObject({ id: org, partyType: 'ORGANIZATION', partySubtype: 'NGO', origin });
    expect(base.body).not.toHaveProperty('specializations');
    const special = await bed.call('GET', `/parties/${org}?include=specializations,registrations`);
    expect(special.body.specializations).toMatchObject({ organizationType: 'NGO', legalName: expect.any(String) });
    expect(special.body.registrations).toEqual([]);
    expect((await bed.call('GET', `/parties/${group}?include=members`)).body.members).toEqual([]);
    expect((await bed.call('DELETE', `/services/${service}`)).status).toBe(204);
    expect((await bed.call('GET', `/parties/${service}`)).status).toBe(404);
  });

  describe('relationships', () => {
    let person: string;
    let org: string;
    beforeAll(async () => {
      person = await bed.create('persons', { displayName: 'Employee' });
      org = await bed.create('organizations', { legalName: unique('Employer') });
    });

    it('creates, gets, lists, updates and soft-deletes a relationship; a party lists its own', async () => {
      const created = await bed.call('POST', '/relationships', {
        body: {
          fromPartyId: person,
          toPartyId: org,
          relationshipType: 'employed_by',
          validFrom: '2020-01-01T00:00:00Z',
        },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        fromPartyId: person,
        toPartyId: org,
        relationshipType: 'employed_by',
        validFrom: '2020-01-01T00:00:00.000Z',
        validTo: null,
      });
      const id = created.body.id as string;
      expect((await bed.call('GET', `/relationships/${id}`, { token: bed.tokens.readerA })).body).toEqual(created.body);
      const ofPerson = await bed.call('GET', `/parties/${person}/relationships`);
      expect(ofPerson.body.data.map((r: { id: string }) => r.id)).toContain(id);
      const ofOrg = await bed.call('GET', `/relationships?partyId=${org}&relationshipType=employed_by`);
      expect(ofOrg.body.data.map((r: { id: string }) => r.id)).toEqual([id]);
      expect((await bed.call('GET', `/parties/${org}?include=relationships`)).body.relationships).toHaveLength(1);

      const updated = await bed.call('PUT', `/relationships/${id}`, {
        body: { validTo: '2024-01-01T00:00:00Z', validFrom: null },
      });
      expect(updated.body).toMatchObject({
        validFrom: '2020-01-01T00:00:00.000Z',
        validTo: '2024-01-01T00:00:00.000Z',
      });

      expect((await bed.call('DELETE', `/relationships/${id}`)).status).toBe(204);
      expect((await bed.call('GET', `/relationships/${id}`)).status).toBe(404);
      expect((await bed.call('DELETE', `/relationships/${id}`)).status).toBe(404);
      expect(
        (await bed.superuser('SELECT deleted_at FROM party_relationships WHERE id = $1', [id]))[0]!.deleted_at,
      ).not.toBeNull();
      expect((await bed.call('GET', `/parties/${person}/relationships`)).body.data).toEqual([]);
    });

    it('refuses overlapping windows of the same parties and type (409), and accepts adjacent ones', async () => {
      const body = (validFrom: string | undefined, validTo: string | undefined) => ({
        fromPartyId: person,
        toPartyId: org,
        relationshipType: 'member_of',
        ...(validFrom ? { validFrom } : {}),
        ...(validTo ? { validTo } : {}),
      });
      expect(
        (await bed.call('POST', '/relationships', { body: body('2021-01-01T00:00:00Z', '2022-01-01T00:00:00Z') }))
          .status,
      ).toBe(201);
      const inside = await bed.call('POST', '/relationships', {
        body: body('2021-06-01T00:00:00Z', '2021-07-01T00:00:00Z'),
      });
      expect(inside).toMatchObject({ status: 409, body: { code: 'CONFLICT_ERROR' } });
      expect((await bed.call('POST', '/relationships', { body: body(undefined, '2021-02-01T00:00:00Z') })).status).toBe(
        409,
      );
      expect((await bed.call('POST', '/relationships', { body: body('2021-12-31T00:00:00Z', undefined) })).status).toBe(
        409,
      );
      const adjacent = await bed.call('POST', '/relationships', { body: body('2022-01-01T00:00:00Z', undefined) });
      expect(adjacent.status).toBe(201);
      // Moving the open-ended one back into the first window overlaps too.
      const moved = await bed.call('PUT', `/relationships/${adjacent.body.id}`, {
        body: { validFrom: '2021-03-01T00:00:00Z' },
      });
      expect(moved.status).toBe(409);
    });

    it('takes types from the tenant’s catalog: the seeded ones and those it registers', async () => {
      const catalog = await bed.call('GET', '/relationship-types', { token: bed.tokens.readerA });
      expect(catalog.body.data.map((t: { code: string }) => t.code)).toEqual(
        expect.arrayContaining(['employed_by', 'member_of', 'same_entity']),
      );
      const unknown = await bed.call('POST', '/relationships', {
        body: { fromPartyId: person, toPartyId: org, relationshipType: 'mentored_by' },
      });
      expect(unknown).toMatchObject({ status: 400, body: { field: 'relationshipType' } });
      const registered = await bed.call('POST', '/relationship-types', {
        body: { code: 'mentored_by', description: 'Mentoring' },
      });
      expect(registered).toMatchObject({ status: 201, body: { code: 'mentored_by', seeded: false } });
      expect((await bed.call('POST', '/relationship-types', { body: { code: 'mentored_by' } })).status).toBe(409);
      expect((await bed.call('POST', '/relationship-types', { body: { code: 'employed_by' } })).status).toBe(409);
      const now = await bed.call('POST', '/relationships', {
        body: { fromPartyId: person, toPartyId: org, relationshipType: 'mentored_by' },
      });
      expect(now.status).toBe(201);
      // The catalog is per tenant: beta has not registered it.
      const betaCatalog = await bed.call('GET', '/relationship-types', { token: bed.tokens.readerB });
      expect(betaCatalog.body.data.map((t: { code: string }) => t.code)).not.toContain('mentored_by');
    });

    it('refuses a window that ends before it starts, a party related to itself and an absent party (400)', async () => {
      const backwards = await bed.call('POST', '/relationships', {
        body: {
          fromPartyId: person,
          toPartyId: org,
          relationshipType: 'represents',
          validFrom: '2022-01-01T00:00:00Z',
          validTo: '2021-01-01T00:00:00Z',
        },
      });
      expect(backwards).toMatchObject({ status: 400, body: { field: 'validTo' } });
      const self = await bed.call('POST', '/relationships', {
        body: { fromPartyId: person, toPartyId: person, relationshipType: 'same_entity' },
      });
      expect(self).toMatchObject({ status: 400, body: { field: 'toPartyId' } });
      const absent = await bed.call('POST', '/relationships', {
        body: { fromPartyId: person, toPartyId: '00000000-0000-4000-8000-000000000009', relationshipType: 'manages' },
      });
      expect(absent).toMatchObject({ status: 400, body: { field: 'toPartyId' } });
    });
  });

  describe('addresses', () => {
    it('adds electronic addresses checked per type, one primary per type, and lists them', async () => {
      const person = await bed.create('persons', { displayName: 'Addressed' });
      const add = (body: Record<string, unknown>) =>
        bed.call('POST', `/parties/${person}/addresses/electronic`, { body });
      const first = await add({ addressType: 'EMAIL', value: 'Ada@Example.ORG', primary: true });
      expect(first).toMatchObject({
        status: 201,
        body: { addressType: 'EMAIL', value: 'Ada@example.org', primary: true, verified: false },
      });
      const second = await add({ addressType: 'EMAIL', value: 'ada@work.example', primary: true, verified: true });
      expect(second.status).toBe(201);
      expect((await add({ addressType: 'PHONE', value: '+44 20 7946 0958', primary: true })).body.value).toBe(
        '+442079460958',
      );
      expect((await add({ addressType: 'URI', value: 'https://ada.example/profile' })).status).toBe(201);
      expect((await add({ addressType: 'EMAIL', value: 'ada@work.example' })).status).toBe(409);

      const listed = await bed.call('GET', `/parties/${person}/addresses/electronic`, { token: bed.tokens.readerA });
      const primaries = listed.body.data.filter((a: { primary: boolean }) => a.primary);
      expect(primaries.map((a: { value: string }) => a.value).sort()).toEqual(['+442079460958', 'ada@work.example']);

      for (const [addressType, value] of [
        ['EMAIL', 'not-an-address'],
        ['EMAIL', 'a@b'],
        ['PHONE', '0044 20 7946'],
        ['PHONE', '+0123'],
        ['URI', 'no scheme here'],
        ['FAX', '+441234'],
      ])
        expect((await add({ addressType, value })).status).toBe(400);

      const removed = await bed.call('DELETE', `/parties/${person}/addresses/electronic/${first.body.id}`);
      expect(removed.status).toBe(204);
      expect((await bed.call('DELETE', `/parties/${person}/addresses/electronic/${first.body.id}`)).status).toBe(404);
    });

    it('adds and lists physical addresses; include=addresses shows both kinds', async () => {
      const org = await bed.create('organizations', { legalName: unique('Located') });
      const posted = await bed.call('POST', `/parties/${org}/addresses/physical`, {
        body: {
          addressType: 'REGISTERED',
          streetLines: ['1 Engine Street'],
          locality: 'London',
          postalCode: 'EC1A 1AA',
          countryCode: 'GB',
          primary: true,
        },
      });
      expect(posted).toMatchObject({
        status: 201,
        body: { addressType: 'REGISTERED', countryCode: 'GB', primary: true },
      });
      expect(
        (
          await bed.call('POST', `/parties/${org}/addresses/physical`, {
            body: { addressType: 'WORK', streetLines: [], countryCode: 'gb' },
          })
        ).status,
      ).toBe(400);
      const listed = await bed.call('GET', `/parties/${org}/addresses/physical`);
      expect(listed.body.data).toEqual([posted.body]);
      const included = await bed.call('GET', `/organizations/${org}?include=addresses`);
      expect(included.body.addresses).toEqual({ electronic: [], physical: [posted.body] });
      expect((await bed.call('GET', `/parties/00000000-0000-4000-8000-000000000003/addresses/physical`)).status).toBe(
        404,
      );
    });
  });

  it('sets, reads and removes an identity’s binding to an application (a service)', async () => {
    const identity = await bed.t.platform.db.withTenant('alpha', (sql) =>
      bed.identities.createIdentity(
        { tenantId: 'alpha', sql },
        { claims: { service_id: unique('bound') }, assurance: { acr: 'urn:test', amr: ['pwd'] } },
      ),
    );
    const identityId = identity.internalIdentityId;
    const app = await bed.create('services', { displayName: 'Bound App', oauthClientId: unique('bound-app') });
    const path = `/identities/${identityId}/applications/${app}`;
    expect((await bed.call('GET', path)).status).toBe(404);
    const created = await bed.call('PUT', path, {
      body: {
        capabilities: ['authenticable'],
        authenticationMethods: ['oid4vp'],
        applicationRole: 'editor',
        validFrom: '2025-01-01T00:00:00Z',
      },
    });
    expect(created).toMatchObject({
      status: 201,
      body: {
        identityId,
        applicationId: app,
        capabilities: ['authenticable'],
        authenticationMethods: ['oid4vp'],
        applicationRole: 'editor',
        validFrom: '2025-01-01T00:00:00.000Z',
        validTo: null,
      },
    });
    const replaced = await bed.call('PUT', path, { body: { capabilities: [], authenticationMethods: ['federation'] } });
    expect(replaced).toMatchObject({ status: 200, body: { capabilities: [], applicationRole: null, validFrom: null } });
    expect((await bed.call('GET', path, { token: bed.tokens.readerA })).body).toEqual(replaced.body);
    expect((await bed.call('DELETE', path)).status).toBe(204);
    expect((await bed.call('DELETE', path)).status).toBe(404);

    const noIdentity = `/identities/00000000-0000-4000-8000-000000000004/applications/${app}`;
    expect((await bed.call('PUT', noIdentity, { body: { capabilities: [], authenticationMethods: [] } })).status).toBe(
      404,
    );
    const person = await bed.create('persons', { displayName: 'Not an application' });
    expect(
      (
        await bed.call('PUT', `/identities/${identityId}/applications/${person}`, {
          body: { capabilities: [], authenticationMethods: [] },
        })
      ).status,
    ).toBe(404);
    const backwards = await bed.call('PUT', path, {
      body: {
        capabilities: [],
        authenticationMethods: [],
        validFrom: '2026-01-01T00:00:00Z',
        validTo: '2025-01-01T00:00:00Z',
      },
    });
    expect(backwards).toMatchObject({ status: 400, body: { field: 'validTo' } });
  });
});
