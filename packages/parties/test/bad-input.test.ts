import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { BASE, startPartyBed, unique, type PartyBed } from './support/party-bed.js';

/**
 * The bad-input table of issue 20: wrong types, unknown party types, a 10,000-member replace, deep includes,
 * SQL-looking q, 1 MB bodies, broken JSON and friends, against every kind of endpoint. Each answers below 500 (a
 * refusal 4xx, or for a search that only looks like SQL, an ordinary 200), and nothing is half-written.
 */
describe.each(DATABASE_KINDS)('party API bad input (%s)', (kind) => {
  let bed: PartyBed;
  let person: string;
  let group: string;
  let org: string;
  let service: string;
  beforeAll(async () => {
    bed = await startPartyBed(kind);
    person = await bed.create('persons', { displayName: 'Target' });
    group = await bed.create('groups', { name: unique('Target Group') });
    org = await bed.create('organizations', { legalName: unique('Target Org') });
    service = await bed.create('services', { displayName: 'Target Service' });
  }, 120_000);
  afterAll(async () => bed?.close());

  const megabyte = 'x'.repeat(1024 * 1024);
  const thousands = Array.from({ length: 10_000 }, () => randomUUID());
  const deep = (levels: number): unknown => (levels === 0 ? 'x' : { a: deep(levels - 1) });

  type Case = [method: string, path: () => string, body: unknown, expected: number | 'below-500'];
  const cases: Case[] = [
    // Wrong types.
    ['POST', () => '/persons', { displayName: 42 }, 400],
    ['POST', () => '/persons', { displayName: ['Ada'] }, 400],
    ['POST', () => '/persons', { displayName: 'Ada', birthDate: 19151210 }, 400],
    ['POST', () => '/persons', { displayName: 'Ada', organizationUnitId: 'not-a-uuid' }, 400],
    ['POST', () => '/organizations', { legalName: 'X', contactDetails: 'mail me' }, 400],
    ['POST', () => '/groups', { name: 'X', members: 'everyone' }, 400],
    ['PUT', () => `/persons/${person}`, { displayName: true }, 400],
    ['PUT', () => `/services/${service}/login-config`, { authenticationMethods: 'oid4vp' }, 400],
    ['POST', () => '/relationships', { fromPartyId: 1, toPartyId: 2, relationshipType: 3 }, 400],
    ['POST', () => `/parties/${person}/addresses/electronic`, { addressType: 'EMAIL', value: 7 }, 400],
    ['POST', () => `/organizations/${org}/registrations`, { scheme: 'lei', value: 'x' }, 400],
    // Unknown party types and fields.
    ['POST', () => '/persons', { displayName: 'Ada', partyType: 'ORGANIZATION' }, 400],
    ['POST', () => '/persons', { displayName: 'Ada', tenant_id: 'beta' }, 400],
    ['GET', () => '/parties?partyType=ALIEN', undefined, 400],
    ['GET', () => '/parties?partyType=person', undefined, 400],
    ['GET', () => '/aliens', undefined, 404],
    // Member lists too long for one request.
    ['PUT', () => `/groups/${group}/members`, { members: thousands }, 413],
    ['PUT', () => `/groups/${group}/members`, { members: thousands.slice(0, 1001) }, 400],
    ['POST', () => '/groups', { name: 'Huge', members: thousands }, 413],
    // Deep include, deep bodies.
    ['GET', () => `/groups/${group}?include=members.members.members`, undefined, 400],
    ['GET', () => `/parties/${group}?include=${'members,'.repeat(40)}`, undefined, 400],
    ['GET', () => `/parties/${group}?include=${'a'.repeat(500)}`, undefined, 400],
    ['POST', () => '/persons', { displayName: 'Ada', nested: deep(200) }, 400],
    ['POST', () => '/organizations', { legalName: 'X', contactDetails: deep(50) }, 400],
    // SQL-looking q and filters: plain words, an ordinary answer.
    ['GET', () => `/persons?q=${encodeURIComponent("'; DROP TABLE parties; --")}`, undefined, 200],
    ['GET', () => `/persons?q=${encodeURIComponent("1' OR '1'='1")}`, undefined, 200],
    ['GET', () => `/persons?q=${encodeURIComponent('a:* & !b | (c <-> d)')}`, undefined, 200],
    ['GET', () => `/persons?name=${encodeURIComponent("x' OR 1=1 --")}`, undefined, 200],
    ['GET', () => `/persons?q=${'a'.repeat(201)}`, undefined, 400],
    ['GET', () => `/persons?q=${encodeURIComponent('\u0000\u0001')}`, undefined, 'below-500'],
    // 1 MB bodies.
    ['POST', () => '/persons', { displayName: megabyte }, 413],
    ['PUT', () => `/persons/${person}`, { displayName: megabyte.slice(0, 60_000) }, 400],
    [
      'POST',
      () => '/relationships',
      { fromPartyId: randomUUID(), toPartyId: randomUUID(), relationshipType: megabyte },
      413,
    ],
    // Broken bodies and paths.
    ['POST', () => '/persons', '{"displayName": "Ada"', 400],
    ['POST', () => '/persons', '', 400],
    ['POST', () => '/persons', '{"displayName":"Ada","constructor":{"prototype":{"admin":true}}}', 400],
    ['POST', () => '/persons', 'null', 400],
    ['POST', () => '/persons', '[]', 400],
    ['POST', () => '/persons', '{"displayName":"Ada","__proto__":{"admin":true}}', 400],
    ['GET', () => '/persons/1%27%20OR%201=1', undefined, 400],
    ['GET', () => `/persons?limit=-5`, undefined, 400],
    ['GET', () => `/persons?limit=1e309`, undefined, 'below-500'],
    ['GET', () => `/persons?page=99999999&size=200`, undefined, 400],
    ['PUT', () => `/relationships/${person}`, { validFrom: 'yesterday' }, 400],
    [
      'PUT',
      () => `/identities/${person}/applications/${service}`,
      { capabilities: [{}], authenticationMethods: [] },
      400,
    ],
  ];

  it(`answers each of the ${cases.length} bad inputs below 500 with the expected status, writing nothing`, async () => {
    const before = await bed.superuser('SELECT count(*)::int AS n FROM parties');
    const membersBefore = await bed.superuser('SELECT count(*)::int AS n FROM party_group_members');
    const outcomes: string[] = [];
    for (const [method, path, body, expected] of cases) {
      const res = await bed.call(method, path(), body === undefined ? {} : { body });
      const ok = expected === 'below-500' ? res.status < 500 : res.status === expected;
      if (!ok) outcomes.push(`${method} ${path().slice(0, 80)} → ${res.status} (expected ${expected})`);
      if (res.status >= 400) expect(res.body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
    expect(outcomes).toEqual([]);
    expect(await bed.superuser('SELECT count(*)::int AS n FROM parties')).toEqual(before);
    expect(await bed.superuser('SELECT count(*)::int AS n FROM party_group_members')).toEqual(membersBefore);
  });

  it('takes a body-less PUT or DELETE that names the JSON content type as having no body', async () => {
    const send = (method: 'PUT' | 'DELETE', path: string) =>
      bed.app.inject({
        method,
        url: `${BASE}${path}`,
        headers: { authorization: `Bearer ${bed.tokens.adminA}`, 'content-type': 'application/json' },
      });
    const member = await bed.create('persons', { displayName: 'Body-less' });
    expect((await send('PUT', `/groups/${group}/members/${member}`)).statusCode).toBe(200);
    expect((await send('DELETE', `/groups/${group}/members/${member}`)).statusCode).toBe(204);
    expect((await send('DELETE', `/persons/${member}`)).statusCode).toBe(204);
    // A route that needs a body still refuses its absence.
    expect((await send('PUT', `/groups/${group}/members`)).statusCode).toBe(400);
  });

  it('answers 415 to a body of a media type it does not read, 400 to plain text', async () => {
    const post = (contentType: string, payload: string) =>
      bed.app.inject({
        method: 'POST',
        url: `${BASE}/persons`,
        headers: { authorization: `Bearer ${bed.tokens.adminA}`, 'content-type': contentType },
        payload,
      });
    const xml = await post('application/xml', '<person><displayName>Ada</displayName></person>');
    expect(xml.statusCode).toBe(415);
    expect(xml.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    const text = await post('text/plain', 'displayName=Ada');
    expect(text.statusCode).toBe(400);
    expect(text.json()).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field: 'body' });
  });
});
