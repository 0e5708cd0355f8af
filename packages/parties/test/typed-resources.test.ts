import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { startPartyBed, unique, type PartyBed } from './support/party-bed.js';

/**
 * The five typed resources of 001 §4.4 (create 201, get, list, update PUT, soft delete 204), their errors in the
 * party envelope (400 with the field, 404, 409, 403), the policy of 001 §5 and the audit of every mutation.
 */
describe.each(DATABASE_KINDS)('typed party resources (%s)', (kind) => {
  let bed: PartyBed;
  beforeAll(async () => {
    bed = await startPartyBed(kind);
  }, 120_000);
  afterAll(async () => bed?.close());

  const samples = (): Record<string, { create: Record<string, unknown>; update: Record<string, unknown> }> => ({
    persons: {
      create: { displayName: 'Ada Lovelace', givenName: 'Ada', familyName: 'Lovelace', birthDate: '1815-12-10' },
      update: { displayName: 'Ada King', origin: 'hr-import' },
    },
    organizations: {
      create: {
        legalName: unique('Analytical Engines Ltd'),
        organizationType: 'COMPANY',
        industry: 'computing',
        contactDetails: { email: 'info@engines.example', phone: '+441234567890' },
        policyUris: { privacy: 'https://engines.example/privacy' },
      },
      update: { industry: 'machinery' },
    },
    organizationunits: {
      create: {
        name: unique('Research'),
        termsUri: 'https://engines.example/terms',
        branding: { primaryColor: '#112233' },
      },
      update: { termsUri: 'https://engines.example/terms-2' },
    },
    services: {
      create: {
        displayName: 'Portal',
        serviceType: 'WEB',
        endpointUri: 'https://portal.example',
        oauthClientId: unique('client'),
      },
      update: { endpointUri: 'https://portal-2.example' },
    },
    groups: { create: { name: unique('Engineers') }, update: { origin: 'directory' } },
  });

  for (const resource of ['persons', 'organizations', 'organizationunits', 'services', 'groups']) {
    it(`${resource}: create 201, get, list, PUT keeps null and omitted fields, delete 204 soft`, async () => {
      const { create, update } = samples()[resource]!;
      const created = await bed.call('POST', `/${resource}`, { body: create });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.headers.location).toBe(`/api/party/v1/${resource}/${id}`);
      expect(created.body).toMatchObject(create);

      const got = await bed.call('GET', `/${resource}/${id}`, { token: bed.tokens.readerA });
      expect(got.status).toBe(200);
      expect(got.body).toEqual(created.body);

      const listed = await bed.call('GET', `/${resource}?limit=200`, { token: bed.tokens.readerA });
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((p: { id: string }) => p.id)).toContain(id);

      // Every stored field survives a PUT that sends it as null or leaves it out.
      const nulls = Object.fromEntries(Object.keys(create).map((k) => [k, null]));
      const updated = await bed.call('PUT', `/${resource}/${id}`, { body: { ...nulls, ...update } });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ ...create, ...update, id });

      const deleted = await bed.call('DELETE', `/${resource}/${id}`);
      expect(deleted.status).toBe(204);
      expect((await bed.call('GET', `/${resource}/${id}`)).status).toBe(404);
      expect((await bed.call('PUT', `/${resource}/${id}`, { body: update })).status).toBe(404);
      expect((await bed.call('DELETE', `/${resource}/${id}`)).status).toBe(404);
      const after = await bed.call('GET', `/${resource}?limit=200`);
      expect(after.body.data.map((p: { id: string }) => p.id)).not.toContain(id);

      // Soft: the row is still in the table, and every mutation is in the audit chain under its command id.
      const rows = await bed.superuser('SELECT tenant_id, deleted_at FROM parties WHERE id = $1', [id]);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.tenant_id).toBe('alpha');
      expect(rows[0]!.deleted_at).not.toBeNull();
      const { events } = await bed.t.platform.audit.query({ tenantId: 'alpha', limit: 500 });
      const mine = events.filter((e) => e.businessIds.partyId === id && e.type === 'command.executed');
      expect(mine.map((e) => `${e.commandId} ${e.result}`)).toEqual(
        expect.arrayContaining([
          `party.${resource}.create success`,
          `party.${resource}.update success`,
          `party.${resource}.delete success`,
        ]),
      );
      expect(mine.find((e) => e.commandId === `party.${resource}.create`)!.principalId).toBe('admin-a');
      expect(await bed.t.platform.audit.verify('alpha')).toMatchObject({ ok: true });
    });
  }

  it('answers the errors in the party envelope: 400 naming the field, 404, 409, 403, 401', async () => {
    const missing = await bed.call('POST', '/persons', { body: { givenName: 'Ada' } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 'ILLEGAL_ARGUMENT_ERROR', message: expect.any(String), field: 'displayName' });

    const wrongType = await bed.call('POST', '/persons', { body: { displayName: 42 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.field).toBe('displayName');

    const badDate = await bed.call('POST', '/persons', { body: { displayName: 'X', birthDate: '2001-02-30' } });
    expect(badDate.status).toBe(400);
    expect(badDate.body.field).toBe('birthDate');
    const future = await bed.call('POST', '/persons', { body: { displayName: 'X', birthDate: '2999-01-01' } });
    expect(future.status).toBe(400);
    expect(future.body.field).toBe('birthDate');

    const absent = await bed.call('GET', '/persons/00000000-0000-4000-8000-000000000000');
    expect(absent.status).toBe(404);
    expect(absent.body).toEqual({ code: 'NOT_FOUND_ERROR', message: expect.any(String) });
    expect((await bed.call('GET', '/persons/not-a-uuid')).status).toBe(400);

    const clientId = unique('dup-client');
    await bed.create('services', { displayName: 'One', oauthClientId: clientId });
    const dup = await bed.call('POST', '/services', { body: { displayName: 'Two', oauthClientId: clientId } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ code: 'ALREADY_EXISTS_ERROR', message: expect.any(String), field: 'oauthClientId' });

    const denied = await bed.call('POST', '/persons', { body: { displayName: 'X' }, token: bed.tokens.readerA });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('POLICY_DENIED');
    const { events } = await bed.t.platform.audit.query({ tenantId: 'alpha', type: 'authorization.denied', limit: 50 });
    expect(events.some((e) => e.commandId === 'party-rest.persons.create' && e.principalId === 'reader-a')).toBe(true);

    const anonymous = await bed.call('GET', '/persons', { token: null });
    expect(anonymous.status).toBe(401);
  });

  it('types a person’s home unit and a unit’s parent: a live unit of the tenant, never the unit itself or below it', async () => {
    const root = await bed.create('organizationunits', { name: unique('Root') });
    const child = await bed.create('organizationunits', { name: unique('Child'), parentOuId: root });
    const grandchild = await bed.create('organizationunits', { name: unique('Grandchild'), parentOuId: child });
    const group = await bed.create('groups', { name: unique('NotAUnit') });

    const person = await bed.call('POST', '/persons', { body: { displayName: 'P', organizationUnitId: child } });
    expect(person.status).toBe(201);
    const wrong = await bed.call('POST', '/persons', { body: { displayName: 'P', organizationUnitId: group } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.field).toBe('organizationUnitId');

    const loop = await bed.call('PUT', `/organizationunits/${root}`, { body: { parentOuId: grandchild } });
    expect(loop.status).toBe(400);
    expect(loop.body.field).toBe('parentOuId');
    expect((await bed.call('PUT', `/organizationunits/${root}`, { body: { parentOuId: root } })).status).toBe(400);

    // A unit that still holds a unit or a person is not deleted.
    const busy = await bed.call('DELETE', `/organizationunits/${child}`);
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('CONFLICT_ERROR');
    expect((await bed.call('DELETE', `/persons/${person.body.id}`)).status).toBe(204);
    expect((await bed.call('DELETE', `/organizationunits/${grandchild}`)).status).toBe(204);
    expect((await bed.call('DELETE', `/organizationunits/${child}`)).status).toBe(204);
  });

  it('reuses no id: a deleted party’s id stays taken', async () => {
    const id = await bed.create('persons', { displayName: 'Gone' });
    expect((await bed.call('DELETE', `/persons/${id}`)).status).toBe(204);
    const rows = await bed.superuser('SELECT count(*)::int AS n FROM parties WHERE id = $1', [id]);
    expect(rows[0]!.n).toBe(1);
  });
});
