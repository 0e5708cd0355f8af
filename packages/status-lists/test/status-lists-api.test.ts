import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { Bitstring } from '@digitalbazaar/bitstring';
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import {
  allocate,
  BASE_URL,
  call,
  OTHER_BASE_URL,
  OTHER_HOST,
  createList,
  listBody,
  published,
  setStatus,
  startBed,
  verifyWithIssuerMetadata,
  type Bed,
} from './support.js';

/** The W3C reader: the credential's encodedList through @digitalbazaar/bitstring (GZIP, index 0 leftmost). */
async function w3cBits(token: string): Promise<{ vc: Record<string, unknown>; bits: Bitstring }> {
  const payload = decodeJwt(token) as Record<string, unknown>;
  const vc = (payload.vc ?? payload) as Record<string, unknown>;
  const subject = vc.credentialSubject as { encodedList: string };
  const encoded = subject.encodedList.startsWith('u') ? subject.encodedList.slice(1) : subject.encodedList;
  const buffer = await Bitstring.decodeBits({ encoded });
  return { vc, bits: new Bitstring({ buffer }) };
}

describe.each(DATABASE_KINDS)('status lists through the API (%s)', (kind) => {
  let bed: Bed;

  beforeAll(async () => {
    bed = await startBed(kind);
  });
  afterAll(async () => {
    await bed?.close();
  });

  it('creates a Token Status List JWT (001 §2.4): a JSON string, statuslist+jwt, verifiable with the issuer keys', async () => {
    const response = await call(bed.app, 'POST', '/vc/status-lists', bed.tokens.admin, {
      statusList: { type: 'OAuthStatusList', id: 'tsl-create', issuer: BASE_URL, proofFormat: 'jwt', lenght: 128 },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const token = response.json() as string;
    expect(typeof token).toBe('string');
    expect(decodeProtectedHeader(token)).toMatchObject({ typ: 'statuslist+jwt', alg: 'ES256' });
    const { payload, metadata } = await verifyWithIssuerMetadata(bed, token);
    expect(metadata.issuer).toBe(BASE_URL);
    expect(payload).toMatchObject({ iss: BASE_URL, sub: `${BASE_URL}/status-lists/tsl-create`, ttl: 300 });
    expect(payload.exp! - payload.iat!).toBe(86_400);
    const list = getListFromStatusListJWT(token);
    expect(list.getBitsPerStatus()).toBe(1);
    expect(list.statusList.length).toBe(128);
    expect(list.statusList.every((s) => s === 0)).toBe(true);
  });

  it.each([1, 2, 4, 8] as const)(
    'Token Status List with %i bits: a set status reads back with @sd-jwt/jwt-status-list, neighbours unchanged',
    async (bits) => {
      const listId = `tsl-bits-${bits}`;
      await createList(bed, listId, { oauthStatusList: { bitsPerStatus: bits }, length: 64 });
      const entries = await Promise.all(Array.from({ length: 5 }, () => allocate(bed, listId)));
      const [target, ...others] = entries;
      const value = (1 << bits) - 1;
      const set = await setStatus(bed, listId, target!.index, value);
      expect(set).toMatchObject({ value, previous: { status: 'valid', value: 0 } });
      const token = await published(bed, listId);
      await verifyWithIssuerMetadata(bed, token);
      const list = getListFromStatusListJWT(token);
      expect(list.getBitsPerStatus()).toBe(bits);
      expect(list.getStatus(target!.index)).toBe(value);
      for (const other of others) expect(list.getStatus(other.index)).toBe(0);
      expect(list.statusList.filter((s) => s !== 0)).toEqual([value]);
      expect(target!.status).toEqual({
        status_list: { idx: target!.index, uri: `${BASE_URL}/status-lists/${listId}` },
      });
    },
  );

  it('names statuses: invalid and suspended on a 2-bit Token Status List; application-specific values', async () => {
    await createList(bed, 'tsl-names', { oauthStatusList: { bitsPerStatus: 2 }, statusPurpose: 'suspension' });
    const [a, b, c] = [
      await allocate(bed, 'tsl-names'),
      await allocate(bed, 'tsl-names'),
      await allocate(bed, 'tsl-names'),
    ];
    expect(await setStatus(bed, 'tsl-names', a!.index, 'suspended')).toMatchObject({ status: 'suspended', value: 2 });
    expect(await setStatus(bed, 'tsl-names', a!.index, 'valid')).toMatchObject({ status: 'valid', value: 0 });
    expect(await setStatus(bed, 'tsl-names', b!.index, 'revoked')).toMatchObject({ status: 'invalid', value: 1 });
    expect(await setStatus(bed, 'tsl-names', c!.index, 3)).toMatchObject({ status: 'application-specific', value: 3 });
    const read = await call(bed.app, 'GET', `/vc/status-lists/tsl-names/entries/${b!.index}`, bed.tokens.reader);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({
      listId: 'tsl-names',
      index: b!.index,
      uri: `${BASE_URL}/status-lists/tsl-names`,
      status: 'invalid',
      value: 1,
    });
  });

  it.each(['StatusList2021', 'BitstringStatusList'] as const)(
    '%s as a VC-JWT: revoked and suspended entries read back with @digitalbazaar/bitstring',
    async (type) => {
      for (const purpose of ['revocation', 'suspension'] as const) {
        const listId = `${type}-${purpose}`;
        const created = await createList(bed, listId, { type, statusPurpose: purpose, length: 256 });
        const header = decodeProtectedHeader(created);
        expect(header.typ).toBe(type === 'BitstringStatusList' ? 'vc+jwt' : 'JWT');
        const entries = await Promise.all(Array.from({ length: 6 }, () => allocate(bed, listId)));
        const uri = `${BASE_URL}/status-lists/${listId}`;
        expect(entries[0]!.credentialStatus).toEqual({
          id: `${uri}#${entries[0]!.index}`,
          type: type === 'BitstringStatusList' ? 'BitstringStatusListEntry' : 'StatusList2021Entry',
          statusPurpose: purpose,
          statusListIndex: String(entries[0]!.index),
          statusListCredential: uri,
        });
        const flagged = purpose === 'revocation' ? 'revoked' : 'suspended';
        expect(await setStatus(bed, listId, entries[0]!.index, flagged)).toMatchObject({ status: flagged, value: 1 });
        expect(await setStatus(bed, listId, entries[1]!.index, flagged)).toMatchObject({ status: flagged });
        const response = await call(bed.app, 'GET', `/status-lists/${listId}`, null);
        expect(response.headers['content-type']).toMatch(/^application\/vc\+jwt/);
        await verifyWithIssuerMetadata(bed, response.body);
        const { vc, bits } = await w3cBits(response.body);
        expect(vc.id).toBe(uri);
        expect(vc.type).toEqual([
          'VerifiableCredential',
          type === 'BitstringStatusList' ? 'BitstringStatusListCredential' : 'StatusList2021Credential',
        ]);
        expect((vc.credentialSubject as Record<string, unknown>).statusPurpose).toBe(purpose);
        expect(bits.length).toBe(256);
        expect(bits.get(entries[0]!.index)).toBe(true);
        expect(bits.get(entries[1]!.index)).toBe(true);
        for (const other of entries.slice(2)) expect(bits.get(other.index)).toBe(false);
        const set = Array.from({ length: 256 }, (_, i) => i).filter((i) => bits.get(i));
        expect(set.sort()).toEqual([entries[0]!.index, entries[1]!.index].sort());
      }
    },
  );

  it('signs with the did:jwk of the key when that is the issuer (kid #0)', async () => {
    const metadataKey = async () => {
      await createList(bed, 'did-probe');
      const metadata = (await call(bed.app, 'GET', '/.well-known/jwt-vc-issuer', null)).json() as {
        jwks: { keys: JWK[] };
      };
      return metadata.jwks.keys[0]!;
    };
    const jwk = await metadataKey();
    const did = `did:jwk:${Buffer.from(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })).toString('base64url')}`;
    const token = await createList(bed, 'did-issued', { issuer: did });
    expect(decodeProtectedHeader(token).kid).toBe(`${did}#0`);
    const resolved = JSON.parse(Buffer.from(did.slice('did:jwk:'.length), 'base64url').toString()) as JWK;
    const { payload } = await jwtVerify(token, await importJWK(resolved, 'ES256'));
    expect(payload.iss).toBe(did);
  });

  it('refuses an issuer that does not publish the key, naming the accepted ones (400)', async () => {
    const response = await call(bed.app, 'POST', '/vc/status-lists', bed.tokens.admin, {
      statusList: {
        type: 'OAuthStatusList',
        id: 'wrong-issuer',
        issuer: 'https://elsewhere.example',
        proofFormat: 'jwt',
        length: 64,
      },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_request', field: 'statusList.issuer' });
    expect(response.json().error_description).toContain(BASE_URL);
    expect(response.json().error_description).toContain('did:jwk:');
  });

  it('answers 409 for a duplicate id in the tenant; another tenant may use the same id', async () => {
    await createList(bed, 'dup');
    const again = await call(bed.app, 'POST', '/vc/status-lists', bed.tokens.admin, {
      statusList: { type: 'StatusList2021', id: 'dup', issuer: BASE_URL, proofFormat: 'jwt', length: 64 },
    });
    expect(again.statusCode).toBe(409);
    const other = await call(bed.app, 'POST', '/vc/status-lists', bed.tokens.otherAdmin, {
      statusList: { type: 'OAuthStatusList', id: 'dup', issuer: OTHER_BASE_URL, proofFormat: 'jwt', length: 64 },
    });
    expect(other.statusCode).toBe(200);
    // Each tenant publishes its own under its own base URL, chosen by the host name; signed by its own key.
    const ours = await call(bed.app, 'GET', '/status-lists/dup', null);
    const theirs = await call(bed.app, 'GET', '/status-lists/dup', null, undefined, { host: OTHER_HOST });
    expect(decodeJwt(ours.body).sub).toBe(`${BASE_URL}/status-lists/dup`);
    expect(decodeJwt(theirs.body)).toMatchObject({ iss: OTHER_BASE_URL, sub: `${OTHER_BASE_URL}/status-lists/dup` });
    expect(decodeProtectedHeader(theirs.body).kid).not.toBe(decodeProtectedHeader(ours.body).kid);
    const metadata = await call(bed.app, 'GET', '/.well-known/jwt-vc-issuer', null, undefined, { host: OTHER_HOST });
    expect(metadata.json()).toMatchObject({ issuer: OTHER_BASE_URL });
    expect((metadata.json() as { jwks: { keys: JWK[] } }).jwks.keys.map((k) => k.kid)).toContain(
      decodeProtectedHeader(theirs.body).kid,
    );
  });

  it('accepts the list URI as id and the default length of 131,072 entries', async () => {
    const token = await createList(bed, `${BASE_URL}/status-lists/by-uri`, { length: undefined });
    expect(decodeJwt(token).sub).toBe(`${BASE_URL}/status-lists/by-uri`);
    expect(getListFromStatusListJWT(token).statusList.length).toBe(131_072);
  });

  it('accepts lists of up to 10,000,000 entries and refuses one more', async () => {
    const token = await createList(bed, 'ten-million', { length: 10_000_000, type: 'BitstringStatusList' });
    const entry = await allocate(bed, 'ten-million');
    await setStatus(bed, 'ten-million', entry.index, 'revoked');
    const { bits } = await w3cBits(await published(bed, 'ten-million'));
    expect(bits.length).toBe(10_000_000);
    expect(bits.get(entry.index)).toBe(true);
    expect(token.length).toBeLessThan(20_000);
    const over = await call(
      bed.app,
      'POST',
      '/vc/status-lists',
      bed.tokens.admin,
      listBody('too-long', { length: 10_000_001 }),
    );
    expect(over.statusCode).toBe(400);
  });

  it('publishes with media type, Cache-Control from the ttl, a strong ETag and 304 on If-None-Match', async () => {
    await createList(bed, 'etag');
    const first = await call(bed.app, 'GET', '/status-lists/etag', null);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toMatch(/^application\/statuslist\+jwt/);
    expect(first.headers['cache-control']).toBe('public, max-age=300');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await call(bed.app, 'GET', '/status-lists/etag', null, undefined, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const entry = await allocate(bed, 'etag');
    // Allocation alone does not change what is published.
    expect((await call(bed.app, 'GET', '/status-lists/etag', null)).headers.etag).toBe(etag);
    await setStatus(bed, 'etag', entry.index, 'invalid');
    const changed = await call(bed.app, 'GET', '/status-lists/etag', null, undefined, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(getListFromStatusListJWT(changed.body).getStatus(entry.index)).toBe(1);
    expect((await call(bed.app, 'GET', '/status-lists/missing', null)).statusCode).toBe(404);
  });

  it('keeps a revoked entry revoked (409) and refuses unallocated or out-of-range indexes', async () => {
    await createList(bed, 'final', { length: 16 });
    const entry = await allocate(bed, 'final');
    await setStatus(bed, 'final', entry.index, 'invalid');
    const undo = await call(bed.app, 'PUT', `/vc/status-lists/final/entries/${entry.index}`, bed.tokens.admin, {
      status: 'valid',
    });
    expect(undo.statusCode).toBe(409);
    const unallocated = [...Array(16).keys()].find((i) => i !== entry.index)!;
    const notYet = await call(bed.app, 'PUT', `/vc/status-lists/final/entries/${unallocated}`, bed.tokens.admin, {
      status: 'invalid',
    });
    expect(notYet.statusCode).toBe(404);
    const outside = await call(bed.app, 'GET', '/vc/status-lists/final/entries/16', bed.tokens.admin);
    expect(outside.statusCode).toBe(400);
    expect(outside.json().error_description).toContain('out of the range');
  });

  it('applies concurrent changes of neighbouring entries (same bytes) without losing any', async () => {
    await createList(bed, 'neighbours', {
      length: 16,
      oauthStatusList: { bitsPerStatus: 2 },
      statusPurpose: 'suspension',
    });
    const entries = await Promise.all(Array.from({ length: 16 }, () => allocate(bed, 'neighbours')));
    const results = await Promise.all(
      entries.map((e, i) => setStatus(bed, 'neighbours', e.index, i % 2 === 0 ? 'suspended' : 3)),
    );
    expect(results.every((r) => r.previous.value === 0)).toBe(true);
    const list = getListFromStatusListJWT(await published(bed, 'neighbours'));
    entries.forEach((e, i) => expect(list.getStatus(e.index)).toBe(i % 2 === 0 ? 2 : 3));
    // Two changes of one entry at once: the second sees the first's value as its previous one.
    const [first, second] = await Promise.all([
      setStatus(bed, 'neighbours', entries[0]!.index, 'valid'),
      setStatus(bed, 'neighbours', entries[0]!.index, 1),
    ]);
    // In whichever order they were applied, the later one saw the earlier one's value.
    const chained =
      (first.previous.value === 2 && second.previous.value === first.value) ||
      (second.previous.value === 2 && first.previous.value === second.value);
    expect(chained).toBe(true);
  });

  it('answers concurrent reads of several lists from shared statements; each read after a change shows it', async () => {
    await createList(bed, 'reads-a', { length: 16 });
    await createList(bed, 'reads-b', { length: 16 });
    const entries = await Promise.all(
      Array.from({ length: 16 }, (_, i) => allocate(bed, i % 2 === 0 ? 'reads-a' : 'reads-b')),
    );
    // Each change is followed by a read of its list while the other changes and reads (and a read of a list that
    // does not exist) are in flight: the read shows its own change, whatever batch it joined.
    const [missing, ...seen] = await Promise.all([
      call(bed.app, 'GET', '/status-lists/reads-missing', null),
      ...entries.map(async (e) => {
        await setStatus(bed, e.listId, e.index, 'invalid');
        return { e, list: getListFromStatusListJWT(await published(bed, e.listId)) };
      }),
    ]);
    expect(missing!.statusCode).toBe(404);
    for (const { e, list } of seen as { e: (typeof entries)[number]; list: { getStatus(i: number): number } }[]) {
      expect(list.getStatus(e.index)).toBe(1);
    }
    // Once all are done, each list shows all of its own changes and none of the other's.
    for (const id of ['reads-a', 'reads-b']) {
      const list = getListFromStatusListJWT(await published(bed, id));
      const mine = entries.filter((e) => e.listId === id).map((e) => e.index);
      for (let i = 0; i < 16; i++) expect(list.getStatus(i)).toBe(mine.includes(i) ? 1 : 0);
    }
  });

  it('rolls over to a new list of the same configuration when full; indexes never repeat', async () => {
    await createList(bed, 'small', { length: 8, type: 'BitstringStatusList' });
    const entries = [];
    for (let i = 0; i < 20; i++) entries.push(await allocate(bed, 'small'));
    const byList = new Map<string, number[]>();
    for (const e of entries) byList.set(e.listId, [...(byList.get(e.listId) ?? []), e.index]);
    expect([...byList.keys()]).toEqual(['small', 'small~2', 'small~3']);
    expect(byList.get('small')!.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(byList.get('small~2')!.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(byList.get('small~3')).toHaveLength(4);
    // The new list is published like the first, same configuration, its own URI.
    const third = entries.at(-1)!;
    expect(third.credentialStatus?.statusListCredential).toBe(`${BASE_URL}/status-lists/small~3`);
    await setStatus(bed, 'small~3', third.index, 'revoked');
    const { vc, bits } = await w3cBits(await published(bed, 'small~3'));
    expect(vc.type).toContain('BitstringStatusListCredential');
    expect(bits.get(third.index)).toBe(true);
  });

  it('holds the policy: readers read, administrators and the issuance service write, tenants stay apart', async () => {
    await createList(bed, 'policy');
    const denied = await call(bed.app, 'POST', '/vc/status-lists/policy/entries', bed.tokens.reader);
    expect(denied.statusCode).toBe(403);
    const anonymous = await call(bed.app, 'POST', '/vc/status-lists/policy/entries', null);
    expect(anonymous.statusCode).toBe(401);
    const entry = await allocate(bed, 'policy', bed.tokens.service);
    const byService = await call(bed.app, 'PUT', `/vc/status-lists/policy/entries/${entry.index}`, bed.tokens.service, {
      status: 'invalid',
      reason: 'keyCompromise',
    });
    expect(byService.statusCode).toBe(200);
    const foreign = await call(bed.app, 'GET', `/vc/status-lists/policy/entries/${entry.index}`, bed.tokens.otherAdmin);
    expect(foreign.statusCode).toBe(404);
  });

  it('audits every change with list id, index, old and new status and the reason', async () => {
    const from = new Date(Date.now() - 1000);
    await createList(bed, 'audited');
    const entry = await allocate(bed, 'audited');
    await call(bed.app, 'PUT', `/vc/status-lists/audited/entries/${entry.index}`, bed.tokens.admin, {
      status: 'invalid',
      reason: 'superseded',
    });
    const page = await bed.t.platform.audit.query({ tenantId: 'demo', from, limit: 500 });
    const mine = page.events.filter((e) => e.businessIds.listId === 'audited').sort((a, b) => a.seq - b.seq);
    expect(mine.map((e) => e.commandId)).toEqual([
      'status-list.create',
      'status-list.allocate-entry',
      'status-list.update-entry',
    ]);
    expect(mine[2]!.businessIds).toEqual({
      listId: 'audited',
      index: String(entry.index),
      oldStatus: 'valid',
      newStatus: 'invalid',
      reason: 'superseded',
    });
    expect(mine[2]!.principalId).toBe('alice');
  });
});
