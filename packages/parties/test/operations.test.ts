import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { startPartyBed, unique, type PartyBed } from './support/party-bed.js';

/**
 * The extra operations of the typed resources (001 §4.4): organization registrations (LEI and VAT checked), unit
 * children and members, a service's login configuration, and group members with idempotent PUT and refused cycles.
 */
describe.each(DATABASE_KINDS)('typed resources’ extra operations (%s)', (kind) => {
  let bed: PartyBed;
  beforeAll(async () => {
    bed = await startPartyBed(kind);
  }, 120_000);
  afterAll(async () => bed?.close());

  describe('organization registrations', () => {
    it('records an LEI and a VAT number, normalised, and lists them; include=registrations shows them too', async () => {
      const org = await bed.create('organizations', { legalName: unique('Registered Org') });
      const lei = await bed.call('POST', `/organizations/${org}/registrations`, {
        body: { scheme: 'LEI', value: 'hwupkr0mpou8fgxbt394', issuingAuthority: 'GLEIF' },
      });
      expect(lei.status).toBe(201);
      expect(lei.body).toMatchObject({ scheme: 'LEI', value: 'HWUPKR0MPOU8FGXBT394', issuingAuthority: 'GLEIF' });
      const vat = await bed.call('POST', `/organizations/${org}/registrations`, {
        body: { scheme: 'VAT', value: 'DE 123.456.789' },
      });
      expect(vat.status).toBe(201);
      expect(vat.body.value).toBe('DE123456789');
      const other = await bed.call('POST', `/organizations/${org}/registrations`, {
        body: { scheme: 'CHAMBER_OF_COMMERCE', value: '12345678' },
      });
      expect(other.status).toBe(201);

      const listed = await bed.call('GET', `/organizations/${org}/registrations`, { token: bed.tokens.readerA });
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((r: { scheme: string }) => r.scheme)).toEqual(['LEI', 'VAT', 'CHAMBER_OF_COMMERCE']);
      const included = await bed.call('GET', `/organizations/${org}?include=registrations`);
      expect(included.body.registrations).toEqual(listed.body.data);
    });

    it('refuses a wrong LEI check digit, a malformed VAT number, a duplicate and an absent organization', async () => {
      const org = await bed.create('organizations', { legalName: unique('Strict Org') });
      const wrongLei = await bed.call('POST', `/organizations/${org}/registrations`, {
        body: { scheme: 'LEI', value: 'HWUPKR0MPOU8FGXBT395' },
      });
      expect(wrongLei).toMatchObject({ status: 400, body: { code: 'ILLEGAL_ARGUMENT_ERROR', field: 'value' } });
      for (const value of ['DE12345678', 'XX123456789', 'NL123456789B0'])
        expect(
          (await bed.call('POST', `/organizations/${org}/registrations`, { body: { scheme: 'VAT', value } })).body
            .field,
        ).toBe('value');
      const value = `NL${String(Date.now()).slice(-9)}B01`;
      expect(
        (await bed.call('POST', `/organizations/${org}/registrations`, { body: { scheme: 'VAT', value } })).status,
      ).toBe(201);
      const other = await bed.create('organizations', { legalName: unique('Other Org') });
      const dup = await bed.call('POST', `/organizations/${other}/registrations`, { body: { scheme: 'VAT', value } });
      expect(dup).toMatchObject({ status: 409, body: { code: 'ALREADY_EXISTS_ERROR', field: 'value' } });
      const person = await bed.create('persons', { displayName: 'Not an organization' });
      expect(
        (
          await bed.call('POST', `/organizations/${person}/registrations`, {
            body: { scheme: 'VAT', value: 'DE123456789' },
          })
        ).status,
      ).toBe(404);
      expect((await bed.call('GET', `/organizations/${person}/registrations`)).status).toBe(404);
    });
  });

  it('lists a unit’s child units and member persons, paged; 404 for a unit that is not live', async () => {
    const unit = await bed.create('organizationunits', { name: unique('Parent Unit') });
    const children = [
      await bed.create('organizationunits', { name: 'Child A', parentOuId: unit }),
      await bed.create('organizationunits', { name: 'Child B', parentOuId: unit }),
    ];
    const members = [
      await bed.create('persons', { displayName: 'Member A', organizationUnitId: unit }),
      await bed.create('persons', { displayName: 'Member B', organizationUnitId: unit }),
      await bed.create('persons', { displayName: 'Member C', organizationUnitId: children[0] }),
    ];
    const kids = await bed.call('GET', `/organizationunits/${unit}/children`, { token: bed.tokens.readerA });
    expect(kids.status).toBe(200);
    expect(kids.body.data.map((u: { id: string }) => u.id)).toEqual(children);
    expect(kids.body.data[0]).toMatchObject({ name: 'Child A', parentOuId: unit, partyType: 'ORGANIZATION_UNIT' });
    const page = await bed.call('GET', `/organizationunits/${unit}/members?limit=1&offset=1`);
    expect(page.body).toEqual({
      data: [expect.objectContaining({ id: members[1], displayName: 'Member B' })],
      pagination: { limit: 1, offset: 1, hasMore: false },
    });
    const roots = await bed.call('GET', `/organizationunits?parentOuId=${unit}`);
    expect(roots.body.data.map((u: { id: string }) => u.id)).toEqual(children);
    const person = await bed.create('persons', { displayName: 'Not a unit' });
    expect((await bed.call('GET', `/organizationunits/${person}/children`)).status).toBe(404);
  });

  it('keeps a service’s login configuration: empty by default, PUT keeps null and omitted fields', async () => {
    const service = await bed.create('services', { displayName: 'Login Service', oauthClientId: unique('login') });
    const empty = await bed.call('GET', `/services/${service}/login-config`, { token: bed.tokens.readerA });
    expect(empty.body).toEqual({
      authenticationMethods: [],
      identifierTypes: [],
      identityProviders: [],
      selfRegistrationAllowed: false,
    });
    const set = await bed.call('PUT', `/services/${service}/login-config`, {
      body: {
        authenticationMethods: ['oid4vp', 'federation', 'oid4vp'],
        identifierTypes: ['SERVICE_ID', 'EPPN'],
        identityProviders: ['https://idp.example'],
        selfRegistrationAllowed: true,
      },
    });
    expect(set.status).toBe(200);
    expect(set.body.authenticationMethods).toEqual(['oid4vp', 'federation']);
    const partial = await bed.call('PUT', `/services/${service}/login-config`, {
      body: { selfRegistrationAllowed: false, identityProviders: null },
    });
    expect(partial.body).toEqual({
      authenticationMethods: ['oid4vp', 'federation'],
      identifierTypes: ['SERVICE_ID', 'EPPN'],
      identityProviders: ['https://idp.example'],
      selfRegistrationAllowed: false,
    });
    expect((await bed.call('GET', `/services/${service}?include=loginConfig`)).body.loginConfig).toEqual(partial.body);
    expect(
      (await bed.call('PUT', `/services/${service}/login-config`, { body: { selfRegistrationAllowed: 'yes' } })).body
        .field,
    ).toBe('selfRegistrationAllowed');
    expect(
      (await bed.call('PUT', `/services/${service}/login-config`, { body: {}, token: bed.tokens.readerA })).status,
    ).toBe(403);
    const group = await bed.create('groups', { name: unique('Not a service') });
    expect((await bed.call('GET', `/services/${group}/login-config`)).status).toBe(404);
  });

  describe('group members', () => {
    it('lists, replaces, adds (POST, idempotent PUT) and removes members of any party type', async () => {
      const group = await bed.create('groups', { name: unique('Team') });
      const person = await bed.create('persons', { displayName: 'Team Person' });
      const org = await bed.create('organizations', { legalName: unique('Team Org') });
      const inner = await bed.create('groups', { name: unique('Inner Team') });
      const service = await bed.create('services', { displayName: 'Team Service' });

      expect((await bed.call('PUT', `/groups/${group}/members`, { body: { members: [person, org] } })).status).toBe(
        200,
      );
      const ids = async () =>
        (await bed.call('GET', `/groups/${group}/members?limit=200`, { token: bed.tokens.readerA })).body.data
          .map((m: { id: string }) => m.id)
          .sort();
      expect(await ids()).toEqual([person, org].sort());

      const posted = await bed.call('POST', `/groups/${group}/members`, { body: { memberId: inner } });
      expect(posted).toMatchObject({ status: 201, body: { memberId: inner, added: true } });
      const first = await bed.call('PUT', `/groups/${group}/members/${service}`);
      expect(first).toMatchObject({ status: 200, body: { added: true } });
      const again = await bed.call('PUT', `/groups/${group}/members/${service}`);
      expect(again).toMatchObject({ status: 200, body: { added: false } });
      expect(await ids()).toEqual([person, org, inner, service].sort());
      const included = await bed.call('GET', `/groups/${group}?include=members`);
      expect(included.body.members).toHaveLength(4);

      expect((await bed.call('DELETE', `/groups/${group}/members/${org}`)).status).toBe(204);
      expect((await bed.call('DELETE', `/groups/${group}/members/${org}`)).status).toBe(404);
      expect(await ids()).toEqual([person, inner, service].sort());

      // A deleted member disappears from the list; the replace sets exactly what it is given.
      expect((await bed.call('DELETE', `/persons/${person}`)).status).toBe(204);
      expect(await ids()).toEqual([inner, service].sort());
      expect((await bed.call('PUT', `/groups/${group}/members`, { body: { members: [] } })).status).toBe(200);
      expect(await ids()).toEqual([]);
      const audit = await bed.t.platform.audit.query({ tenantId: 'alpha', limit: 500 });
      const commands = audit.events.filter((e) => e.businessIds.partyId === group).map((e) => e.commandId);
      expect(commands).toEqual(
        expect.arrayContaining([
          'party.groups.replace-members',
          'party.groups.add-member',
          'party.groups.remove-member',
        ]),
      );
    });

    it('refuses a cycle, direct or through three groups, with 400 naming it; nothing is written', async () => {
      const [a, b, c] = [
        await bed.create('groups', { name: unique('Cycle A') }),
        await bed.create('groups', { name: unique('Cycle B') }),
        await bed.create('groups', { name: unique('Cycle C') }),
      ];
      const self = await bed.call('PUT', `/groups/${a}/members/${a}`);
      expect(self).toMatchObject({ status: 400, body: { code: 'ILLEGAL_ARGUMENT_ERROR', field: 'memberId' } });
      expect(self.body.message).toContain(`${a} -> ${a}`);

      expect((await bed.call('PUT', `/groups/${a}/members/${b}`)).status).toBe(200);
      expect((await bed.call('PUT', `/groups/${b}/members/${c}`)).status).toBe(200);
      const cycle = await bed.call('PUT', `/groups/${c}/members/${a}`);
      expect(cycle.status).toBe(400);
      expect(cycle.body.message).toContain(`${c} -> ${a} -> ${b} -> ${c}`);
      const viaReplace = await bed.call('PUT', `/groups/${c}/members`, { body: { members: [a] } });
      expect(viaReplace).toMatchObject({ status: 400, body: { field: 'members' } });
      const viaCreate = await bed.call('PUT', `/groups/${c}`, { body: { members: [b] } });
      expect(viaCreate.status).toBe(400);
      expect((await bed.call('GET', `/groups/${c}/members`)).body.data).toEqual([]);
    });

    it('answers 404 for an unknown member by id, 400 for one in a list, and 404 for a group that is not live', async () => {
      const group = await bed.create('groups', { name: unique('Strict Team') });
      const nobody = '00000000-0000-4000-8000-000000000001';
      expect((await bed.call('PUT', `/groups/${group}/members/${nobody}`)).status).toBe(404);
      const listed = await bed.call('PUT', `/groups/${group}/members`, {
        body: { members: [nobody.replace(/1$/, '2'), nobody] },
      });
      expect(listed.status).toBe(400);
      expect(listed.body.field).toMatch(/^members\.\d$/);
      const person = await bed.create('persons', { displayName: 'Not a group' });
      expect((await bed.call('PUT', `/groups/${person}/members/${group}`)).status).toBe(404);
      expect((await bed.call('GET', `/groups/${person}/members`)).status).toBe(404);
    });
  });
});
