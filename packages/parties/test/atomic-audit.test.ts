import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, refuseAuditStaging } from '@tessera/platform/testing';
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

  /** Every row the removals and the catalog write touch, and what is staged. */
  const state = async () => ({
    relationships: await bed.superuser('SELECT * FROM party_relationships ORDER BY id'),
    types: await bed.superuser('SELECT * FROM party_relationship_types ORDER BY tenant_id, code'),
    electronic: await bed.superuser('SELECT * FROM party_electronic_addresses ORDER BY id'),
    physical: await bed.superuser('SELECT * FROM party_physical_addresses ORDER BY id'),
    bindings: await bed.superuser('SELECT * FROM party_identity_applications ORDER BY identity_id, application_id'),
    staged: await staged(),
  });

  /**
   * The call once with staging refused (503, nothing changed), then once for real: `expected`, and one more
   * success event of the command whose business ids include `ids`, nothing staged.
   */
  const atomically = async (
    commandId: string,
    attempt: () => Promise<{ status: number }>,
    expected: number,
    ids: Record<string, string>,
  ) => {
    await bed.t.platform.audit.whenIdle();
    const before = await state();
    const successes = async () => (await events(commandId)).filter((e) => e.result === 'success');
    const count = (await successes()).length;
    const allow = await refuseAuditStaging(bed.t.platform.db);
    try {
      expect((await attempt()).status).toBe(503);
    } finally {
      await allow();
    }
    await bed.t.platform.audit.whenIdle();
    expect(await state()).toEqual(before);
    expect((await attempt()).status).toBe(expected);
    await bed.t.platform.audit.whenIdle();
    const after = await successes();
    expect(after).toHaveLength(count + 1);
    expect(after.find((e) => Object.entries(ids).every(([k, v]) => e.businessIds[k] === v))).toBeDefined();
    expect(await staged()).toBe(0);
    expect(await bed.t.platform.audit.verify('alpha')).toMatchObject({ ok: true });
  };

  it('registers a relationship type and deletes a relationship with their events, or not at all', async () => {
    const code = unique('mentored_by')
      .toLowerCase()
      .replace(/[^a-z_]/g, '_');
    await atomically(
      'party.relationship-types.register',
      () => bed.call('POST', '/relationship-types', { body: { code, description: 'Mentoring' } }),
      201,
      { relationshipType: code },
    );
    const person = await bed.create('persons', { displayName: 'Mentee' });
    const org = await bed.create('organizations', { legalName: unique('Mentor') });
    const created = await bed.call('POST', '/relationships', {
      body: { fromPartyId: person, toPartyId: org, relationshipType: code },
    });
    expect(created.status).toBe(201);
    const id = String(created.body.id);
    await atomically('party.relationships.delete', () => bed.call('DELETE', `/relationships/${id}`), 204, {
      relationshipId: id,
    });
    expect((await bed.call('GET', `/relationships/${id}`)).status).toBe(404);
  });

  it('removes an address with its event, or not at all', async () => {
    const person = await bed.create('persons', { displayName: 'Addressed' });
    const added = await bed.call('POST', `/parties/${person}/addresses/electronic`, {
      body: { addressType: 'EMAIL', value: 'kept@example.org' },
    });
    expect(added.status).toBe(201);
    const addressId = String(added.body.id);
    await atomically(
      'party.addresses.remove-electronic',
      () => bed.call('DELETE', `/parties/${person}/addresses/electronic/${addressId}`),
      204,
      { partyId: person, addressId },
    );
    expect(await bed.superuser('SELECT id FROM party_electronic_addresses WHERE id = $1', [addressId])).toEqual([]);
  });

  it('removes an identity’s binding to an application with its event, or not at all', async () => {
    const identity = await bed.t.platform.db.withTenant('alpha', (sql) =>
      bed.identities.createIdentity(
        { tenantId: 'alpha', sql },
        { claims: { service_id: unique('bound') }, assurance: { acr: 'urn:test', amr: ['pwd'] } },
      ),
    );
    const identityId = identity.internalIdentityId;
    const app = await bed.create('services', { displayName: 'Bound App', oauthClientId: unique('bound-app') });
    const path = `/identities/${identityId}/applications/${app}`;
    expect(
      (await bed.call('PUT', path, { body: { capabilities: ['authenticable'], authenticationMethods: ['oid4vp'] } }))
        .status,
    ).toBe(201);
    await atomically('party.identity-applications.delete', () => bed.call('DELETE', path), 204, {
      identityId,
      applicationId: app,
    });
    expect((await bed.call('GET', path)).status).toBe(404);
  });
});
