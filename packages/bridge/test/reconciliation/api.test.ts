import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@tessera/platform';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { computeIdentifierHash, PURGE_EXPIRED_AUXILIARY_JOB, reconciliationJobs } from '../../src/index.js';
import { startReconBed, unique, type ReconBed } from './support/recon-bed.js';

/**
 * The seven endpoints of the external reconciliation API (000 §4.3) with tokens of both authorization servers:
 * exact response fields, per-client projection (000 §2.7, §5), auxiliary data (000 §2.6, §3.3: create, replace
 * never merge, idempotent delete, 64 KB on the stored bytes, expiry and its retention job), lookups and their
 * audit events (000 §6), and the hashing command line.
 */
const CLI = fileURLToPath(new URL('../../src/reconciliation/cli/hash-identifier.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const run = promisify(execFile);

describe.each(DATABASE_KINDS)('reconciliation API endpoints (%s)', (kind) => {
  let bed: ReconBed;
  let full: string;
  let partner: string;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    bed = await startReconBed({ kind, clock });
    full = await bed.ourToken('recon-full');
    partner = (await bed.second.token('partner-system')).accessToken;
  });
  afterAll(async () => bed?.close());

  const person = (serviceId: string) => ({
    service_id: serviceId,
    eduperson_principal_name: `${serviceId}@uni.example`,
    email: `${serviceId}@mail.example`,
    given_name: 'Ada',
    family_name: 'Lovelace',
  });
  const lookup = (token: string, identifierHash: string, identifierType: string) =>
    bed.call({ method: 'POST', path: '/lookup', token, body: { identifierHash, identifierType } });
  const put = (token: string, id: string, category: string, body: unknown) =>
    bed.call({ method: 'PUT', path: `/${id}/auxiliary/${category}`, token, body });
  const get = (token: string, path: string) => bed.call({ method: 'GET', path, token });

  describe('lookup', () => {
    it('finds an identity by SERVICE_ID, EPPN and KEY hashes, with exactly the fields of 000 §4.3, projected', async () => {
      const serviceId = unique('S');
      const holderKey = `urn:ietf:params:oauth:jwk-thumbprint:sha-256:${unique('hk')}`;
      const id = await bed.createIdentity(person(serviceId), holderKey);
      for (const [type, value] of [
        ['SERVICE_ID', serviceId],
        ['EPPN', `${serviceId}@uni.example`],
        ['KEY', holderKey],
      ] as const) {
        const res = await lookup(full, await bed.hash(value), type);
        expect(res.status).toBe(200);
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.body).toEqual({
          internalIdentityId: id,
          claims: { service_id: serviceId, email: `${serviceId}@mail.example` },
          auxiliaryCategories: [],
          assurance: { acr: 'urn:test:loa:substantial', amr: ['federation'] },
        });
      }
      // The second provider's client has another projection: only eduperson_principal_name.
      const theirs = await lookup(partner, await bed.hash(serviceId), 'SERVICE_ID');
      expect(theirs.status).toBe(200);
      expect(theirs.body.claims).toEqual({ eduperson_principal_name: `${serviceId}@uni.example` });
    });

    it('answers 404 identity_not_found for an unknown hash and for a hash that names several identities', async () => {
      const unknown = await lookup(full, await bed.hash(unique('nobody')), 'SERVICE_ID');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: 'identity_not_found', error_description: expect.any(String) });
      const shared = unique('shared');
      await bed.createIdentity({ service_id: shared });
      await bed.createIdentity({ service_id: shared });
      const ambiguous = await lookup(full, await bed.hash(shared), 'SERVICE_ID');
      expect(ambiguous.status).toBe(404);
      expect(ambiguous.body.error).toBe('identity_not_found');
      // A hash under another key matches nothing: the client must use the tenant's shared key.
      const wrongKey = await lookup(full, Buffer.alloc(32, 7).toString('base64url'), 'SERVICE_ID');
      expect(wrongKey.status).toBe(404);
    });

    it('refuses an unknown identifierType and a hash that is not 43 base64url characters (400)', async () => {
      const hash = await bed.hash('x');
      for (const [h, type] of [
        [hash, 'EMAIL'],
        [hash, 'service_id'],
        [`${hash}=`, 'SERVICE_ID'],
        [hash.slice(1), 'SERVICE_ID'],
        [`${hash.slice(1)}+`, 'SERVICE_ID'],
      ] as const) {
        const res = await lookup(full, h, type);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('invalid_request');
      }
    });

    it('audits each lookup as external_api_lookup with the client id, never the hash', async () => {
      const serviceId = unique('audit');
      const id = await bed.createIdentity(person(serviceId));
      const hash = await bed.hash(serviceId);
      const missing = await bed.hash(unique('missing'));
      expect((await lookup(partner, hash, 'SERVICE_ID')).status).toBe(200);
      expect((await lookup(full, missing, 'SERVICE_ID')).status).toBe(404);
      const { events } = await bed.platform.audit.query({ tenantId: 'demo', type: 'external_api_lookup', limit: 500 });
      const found = events.find((e) => e.businessIds.internalIdentityId === id);
      expect(found).toMatchObject({
        commandId: 'reconciliation-api.identities.lookup',
        principalId: 'partner-system',
        result: 'success',
        details: { client_id: 'partner-system', identifier_type: 'SERVICE_ID', outcome: 'found' },
      });
      expect(events.some((e) => e.details.client_id === 'recon-full' && e.details.outcome === 'not_found')).toBe(true);
      const text = JSON.stringify(events);
      expect(text).not.toContain(hash);
      expect(text).not.toContain(missing);
      expect(text).not.toContain(serviceId);
    });

    it('accepts the hash printed by the reconciliation-hash command line', async () => {
      const serviceId = unique('cli');
      const id = await bed.createIdentity(person(serviceId));
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', CLI, '--key', await bed.sharedKey(), '--type', 'SERVICE_ID', '--value', serviceId],
        { cwd: REPO },
      );
      const body = JSON.parse(stdout) as { identifierHash: string; identifierType: string };
      expect(body).toEqual({ identifierHash: await bed.hash(serviceId), identifierType: 'SERVICE_ID' });
      const res = await bed.call({ method: 'POST', path: '/lookup', token: full, body });
      expect(res.body.internalIdentityId).toBe(id);
      // Keys and identifiers may begin with a dash; the identifier may come on standard input instead.
      const dashKey = `-${'A'.repeat(42)}`;
      const dashed = await run(
        process.execPath,
        ['--import', 'tsx', CLI, '--key', dashKey, '--type', 'EPPN', '--value', '-lead@uni.example'],
        { cwd: REPO },
      );
      expect(JSON.parse(dashed.stdout)).toEqual({
        identifierHash: computeIdentifierHash(dashKey, '-lead@uni.example'),
        identifierType: 'EPPN',
      });
    });
  });

  describe('identity and claims', () => {
    it('GET /{id} answers the projected identity with its bindings; 404 when unknown, 400 when not a UUID', async () => {
      const serviceId = unique('get');
      const id = await bed.createIdentity(person(serviceId), `did:example:${unique('holder')}`);
      const res = await get(full, `/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        internalIdentityId: id,
        claims: { service_id: serviceId, email: `${serviceId}@mail.example` },
        auxiliaryCategories: [],
        assurance: { acr: 'urn:test:loa:substantial', amr: ['federation'] },
        bindings: { walletBound: true, federationBound: false, lastAuthenticatedAt: null },
      });
      const unknown = await get(full, `/${crypto.randomUUID()}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toBe('identity_not_found');
      expect((await get(full, '/not-a-uuid')).status).toBe(400);
    });

    it('GET /{id}/claims answers only the projected claims, whatever the request asks for', async () => {
      const serviceId = unique('claims');
      const id = await bed.createIdentity(person(serviceId));
      const ours = await get(full, `/${id}/claims?claims=given_name,family_name&projection=all`);
      expect(ours.status).toBe(200);
      expect(ours.body).toEqual({ service_id: serviceId, email: `${serviceId}@mail.example` });
      expect((await get(partner, `/${id}/claims`)).body).toEqual({
        eduperson_principal_name: `${serviceId}@uni.example`,
      });
      // A projected claim the identity does not have is simply absent.
      const bare = await bed.createIdentity({ service_id: unique('bare') });
      expect(Object.keys((await get(full, `/${bare}/claims`)).body)).toEqual(['service_id']);
      expect((await get(full, `/${crypto.randomUUID()}/claims`)).body.error).toBe('identity_not_found');
    });
  });

  describe('auxiliary data', () => {
    it('PUT creates (201), then replaces entirely (200, never merged); GET answers what was stored last', async () => {
      const id = await bed.createIdentity(person(unique('aux')));
      const first = await put(full, id, 'crm', { data: { tier: 'gold', tags: ['a'], nested: { keep: 1 } } });
      expect(first.status).toBe(201);
      expect(first.body).toEqual({
        category: 'crm',
        storedBy: 'recon-full',
        storedAt: clock.now().toISOString(),
        expiresAt: null,
      });
      const second = await put(full, id, 'crm', { data: { tier: 'silver' } });
      expect(second.status).toBe(200);
      const read = await get(full, `/${id}/auxiliary/crm`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({
        category: 'crm',
        data: { tier: 'silver' },
        storedBy: 'recon-full',
        storedAt: clock.now().toISOString(),
        expiresAt: null,
      });
    });

    it('records the storing client; another client with the category in its projection reads it', async () => {
      const id = await bed.createIdentity(person(unique('shared-aux')));
      expect((await put(full, id, 'crm', { data: { by: 'ours' } })).status).toBe(201);
      const theirs = await get(partner, `/${id}/auxiliary/crm`);
      expect(theirs.body).toMatchObject({ data: { by: 'ours' }, storedBy: 'recon-full' });
      const replaced = await put(partner, id, 'crm', { data: { by: 'theirs' } });
      expect(replaced).toMatchObject({ status: 200, body: { storedBy: 'partner-system' } });
      expect((await get(full, `/${id}/auxiliary/crm`)).body).toMatchObject({
        data: { by: 'theirs' },
        storedBy: 'partner-system',
      });
    });

    it('lists only the categories of the client projection, in lookup and GET', async () => {
      const serviceId = unique('cats');
      const id = await bed.createIdentity(person(serviceId));
      for (const [token, category] of [
        [full, 'notes'],
        [full, 'crm'],
        [partner, 'partner'],
      ] as const)
        expect((await put(token, id, category, { data: { category } })).status).toBe(201);
      expect((await get(full, `/${id}`)).body.auxiliaryCategories).toEqual(['crm', 'notes']);
      expect((await get(partner, `/${id}`)).body.auxiliaryCategories).toEqual(['crm', 'partner']);
      expect((await lookup(full, await bed.hash(serviceId), 'SERVICE_ID')).body.auxiliaryCategories).toEqual([
        'crm',
        'notes',
      ]);
      expect((await lookup(partner, await bed.hash(serviceId), 'SERVICE_ID')).body.auxiliaryCategories).toEqual([
        'crm',
        'partner',
      ]);
    });

    it('outside the projection: PUT and DELETE 403 category_not_allowed, GET 404 auxiliary_not_found', async () => {
      const id = await bed.createIdentity(person(unique('outside')));
      expect((await put(partner, id, 'partner', { data: { secret: 'theirs' } })).status).toBe(201);
      const write = await put(full, id, 'partner', { data: { overwrite: true } });
      expect(write.status).toBe(403);
      expect(write.body).toEqual({ error: 'category_not_allowed', error_description: expect.any(String) });
      const remove = await bed.call({ method: 'DELETE', path: `/${id}/auxiliary/partner`, token: full });
      expect(remove.status).toBe(403);
      expect(remove.body.error).toBe('category_not_allowed');
      // Data exists there, but for this client GET is indistinguishable from an empty category (decision).
      const read = await get(full, `/${id}/auxiliary/partner`);
      expect(read.status).toBe(404);
      expect(read.body.error).toBe('auxiliary_not_found');
      expect((await put(full, id, 'unconfigured', { data: {} })).body.error).toBe('category_not_allowed');
      // Untouched.
      expect((await get(partner, `/${id}/auxiliary/partner`)).body.data).toEqual({ secret: 'theirs' });
    });

    it('DELETE is idempotent (204, 204), also for an unknown identity; GET then answers 404 auxiliary_not_found', async () => {
      const id = await bed.createIdentity(person(unique('del')));
      expect((await put(full, id, 'notes', { data: { n: 1 } })).status).toBe(201);
      for (let i = 0; i < 2; i++) {
        const res = await bed.call({ method: 'DELETE', path: `/${id}/auxiliary/notes`, token: full });
        expect(res.status).toBe(204);
        expect(res.raw).toBe('');
      }
      const gone = await get(full, `/${id}/auxiliary/notes`);
      expect(gone.status).toBe(404);
      expect(gone.body.error).toBe('auxiliary_not_found');
      expect(
        (await bed.call({ method: 'DELETE', path: `/${crypto.randomUUID()}/auxiliary/notes`, token: full })).status,
      ).toBe(204);
      // A client library that names a JSON content type on a DELETE without a body is answered the same.
      const typed = { 'content-type': 'application/json' };
      expect(
        (await bed.call({ method: 'DELETE', path: `/${id}/auxiliary/notes`, token: full, headers: typed })).status,
      ).toBe(204);
      expect((await put(full, id, 'notes', { data: { n: 2 } })).status).toBe(201);
    });

    it('answers 404 identity_not_found for PUT and GET on an unknown identity', async () => {
      const nobody = crypto.randomUUID();
      expect((await put(full, nobody, 'crm', { data: {} })).body.error).toBe('identity_not_found');
      expect((await get(full, `/${nobody}/auxiliary/crm`)).body.error).toBe('identity_not_found');
    });

    it('accepts exactly 64 KB of stored (canonical) data and refuses one byte more with 413 data_too_large', async () => {
      const id = await bed.createIdentity(person(unique('size')));
      // Canonical form {"x":"..."}: 8 bytes around the string.
      const exact = { x: 'a'.repeat(65_536 - 8) };
      expect(Buffer.byteLength(JSON.stringify(exact))).toBe(65_536);
      expect((await put(full, id, 'crm', { data: exact })).status).toBe(201);
      expect(((await get(full, `/${id}/auxiliary/crm`)).body.data as { x: string }).x).toHaveLength(65_528);
      const over = await put(full, id, 'crm', { data: { x: 'a'.repeat(65_536 - 7) } });
      expect(over.status).toBe(413);
      expect(over.body).toEqual({ error: 'data_too_large', error_description: expect.any(String) });
      // Measured on the stored bytes: whitespace in the request does not count, multi-byte characters do.
      const spaced = `{ "data" : { "x" : "${'b'.repeat(65_528)}" ${' '.repeat(4000)} } }`;
      expect(Buffer.byteLength(spaced)).toBeGreaterThan(65_536 + 4000);
      const json = { 'content-type': 'application/json' };
      const spacedPut = await bed.call({
        method: 'PUT',
        path: `/${id}/auxiliary/notes`,
        token: full,
        body: spaced,
        headers: json,
      });
      expect(spacedPut.status).toBe(201);
      const twoByte = { x: 'é'.repeat((65_536 - 8) / 2) };
      expect((await put(full, id, 'notes', { data: twoByte })).status).toBe(200);
      expect((await put(full, id, 'notes', { data: { x: `${'é'.repeat((65_536 - 8) / 2)}a` } })).status).toBe(413);
      // A body far over the route's limit is refused the same way, before it is parsed.
      const huge = await put(full, id, 'notes', { data: { x: 'a'.repeat(200_000) } });
      expect(huge.status).toBe(413);
      expect(huge.body.error).toBe('data_too_large');
      // What was stored last is still there.
      expect(((await get(full, `/${id}/auxiliary/notes`)).body.data as { x: string }).x).toBe(twoByte.x);
    });

    it('honours expiresAt: expired data is gone for reads, counts as absent for PUT, and the retention job removes it', async () => {
      const id = await bed.createIdentity(person(unique('exp')));
      const expiresAt = new Date(clock.now().getTime() + 3600_000).toISOString();
      const stored = await put(full, id, 'crm', { data: { until: 'soon' }, expiresAt });
      expect(stored).toMatchObject({ status: 201, body: { expiresAt } });
      expect((await get(full, `/${id}/auxiliary/crm`)).body.expiresAt).toBe(expiresAt);
      await put(full, id, 'notes', { data: { forever: true } });
      const rows = () =>
        bed.platform.db.withTenant('demo', async (sql) =>
          (
            await sql.query<{ category: string }>(
              'SELECT category FROM reconciliation_auxiliary_data WHERE identity_id = $1 ORDER BY category',
              [id],
            )
          ).rows.map((r) => r.category),
        );
      const start = clock.now();
      try {
        clock.advance(3601);
        expect((await get(full, `/${id}/auxiliary/crm`)).status).toBe(404);
        expect((await get(full, `/${id}`)).body.auxiliaryCategories).toEqual(['notes']);
        expect(await rows()).toEqual(['crm', 'notes']);
        const job = reconciliationJobs(bed.b.handle.services).find((j) => j.name === PURGE_EXPIRED_AUXILIARY_JOB)!;
        expect(job.intervalSeconds).toBe(3600);
        await job.run(new AbortController().signal);
        expect(await rows()).toEqual(['notes']);
        // Expired and purged, or expired only: a PUT creates again.
        expect((await put(full, id, 'crm', { data: { again: true } })).status).toBe(201);
      } finally {
        clock.set(start);
      }
    });

    it('refuses an expiresAt that is not an ISO 8601 date-time with a zone, or not in the future (400)', async () => {
      const id = await bed.createIdentity(person(unique('bad-exp')));
      for (const expiresAt of [
        'tomorrow',
        '2099-01-01',
        '2099-01-01T00:00:00',
        new Date(clock.now().getTime() - 1000).toISOString(),
      ]) {
        const res = await put(full, id, 'crm', { data: {}, expiresAt });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ error: 'invalid_request', field: 'expiresAt' });
      }
    });
  });
});
