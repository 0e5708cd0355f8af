import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { allocate, BASE_URL, call, countRows, createList, startBed, type Bed } from './support.js';

/**
 * Issue 16 "Bad input": each refused with a 400 and a message that says what is wrong, never a 5xx, and nothing
 * written (no list, no status chunk, no version moved).
 */
const list = (over: Record<string, unknown>) => ({
  statusList: { type: 'OAuthStatusList', id: 'bad', issuer: BASE_URL, proofFormat: 'jwt', length: 64, ...over },
});

const CREATE_CASES: [string, unknown, string, RegExp][] = [
  ['unknown type', list({ type: 'RevocationList2020' }), 'statusList.type', /Unknown status list type/],
  [
    'bits 3',
    list({ oauthStatusList: { bitsPerStatus: 3 } }),
    'statusList.oauthStatusList.bitsPerStatus',
    /not one of 1, 2, 4, 8/,
  ],
  ['negative length', list({ length: -5 }), 'statusList.length', /length must be an integer from 8 to 10000000/],
  ['huge length', list({ length: 1e12 }), 'statusList.length', /length must be an integer/],
  ['length below the minimum', list({ length: 7 }), 'statusList.length', /from 8/],
  ['fractional length', list({ length: 12.5 }), 'statusList.length', /integer/],
  ['lenght and length disagree', list({ length: 64, lenght: 128 }), 'statusList.length', /disagree/],
  ['proofFormat ldp', list({ proofFormat: 'ldp' }), 'statusList.proofFormat', /ldp .* not supported/],
  ['unknown proofFormat', list({ proofFormat: 'cwt' }), 'statusList.proofFormat', /Unknown proofFormat/],
  ['unknown purpose', list({ statusPurpose: 'refresh' }), 'statusList.statusPurpose', /Unknown statusPurpose/],
  [
    'W3C list with 2 bits',
    list({ type: 'BitstringStatusList', oauthStatusList: { bitsPerStatus: 2 } }),
    'statusList.oauthStatusList.bitsPerStatus',
    /one bit per status/,
  ],
  ['message purpose at 1 bit', list({ statusPurpose: 'message' }), 'statusList.statusPurpose', /message needs/],
  ['id with a slash', list({ id: 'a/b' }), 'statusList.id', /statusList.id must be/],
  ['keyRef of another tenant', list({ keyRef: 'status-list:other' }), 'statusList.keyRef', /keyRef names/],
  [
    'missing issuer',
    { statusList: { type: 'OAuthStatusList', id: 'bad', proofFormat: 'jwt' } },
    'statusList.issuer',
    /issuer/,
  ],
  ['no statusList', { type: 'OAuthStatusList' }, 'statusList', /statusList/],
  ['an unknown member', list({ colour: 'red' }), 'statusList', /additional properties/],
];

describe.each(DATABASE_KINDS)('bad input (%s)', (kind) => {
  let bed: Bed;
  let index: number;
  let neighbour: number;

  beforeAll(async () => {
    bed = await startBed(kind);
    await createList(bed, 'two-bits', { oauthStatusList: { bitsPerStatus: 2 }, length: 16 });
    index = (await allocate(bed, 'two-bits')).index;
    neighbour = (await allocate(bed, 'two-bits')).index;
    await call(bed.app, 'PUT', `/vc/status-lists/two-bits/entries/${neighbour}`, bed.tokens.admin, { status: 2 });
  });
  afterAll(async () => {
    await bed?.close();
  });

  const unchanged = async (before: { lists: number; chunks: number; token: string }) => {
    expect(await countRows(bed, 'status_lists')).toBe(before.lists);
    expect(await countRows(bed, 'status_list_chunks')).toBe(before.chunks);
    expect((await call(bed.app, 'GET', '/status-lists/two-bits', null)).body).toBe(before.token);
  };
  const snapshot = async () => ({
    lists: await countRows(bed, 'status_lists'),
    chunks: await countRows(bed, 'status_list_chunks'),
    token: (await call(bed.app, 'GET', '/status-lists/two-bits', null)).body,
  });

  it.each(CREATE_CASES)('POST /vc/status-lists: %s → 400', async (_name, body, field, message) => {
    const before = await snapshot();
    const response = await call(bed.app, 'POST', '/vc/status-lists', bed.tokens.admin, body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_request', field });
    expect(response.json().error_description).toMatch(message);
    await unchanged(before);
  });

  it('malformed JSON → 400, nothing written', async () => {
    const before = await snapshot();
    const response = await call(bed.app, 'POST', '/vc/status-lists', bed.tokens.admin, '{"statusList": {', {
      'content-type': 'application/json',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error_description).toMatch(/not valid JSON/);
    await unchanged(before);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])(
    'wrong content type %s → 400, nothing written',
    async (type) => {
      const before = await snapshot();
      const response = await call(bed.app, 'POST', '/vc/status-lists', bed.tokens.admin, 'statusList=x', {
        'content-type': type,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 'invalid_request', field: 'content-type' });
      expect(response.json().error_description).toMatch(/application\/json/);
      const put = await call(
        bed.app,
        'PUT',
        `/vc/status-lists/two-bits/entries/${index}`,
        bed.tokens.admin,
        'status=1',
        {
          'content-type': type,
        },
      );
      expect(put.statusCode).toBe(400);
      await unchanged(before);
    },
  );

  const ENTRY_CASES: [string, () => string, unknown, RegExp][] = [
    ['index out of range', () => '/vc/status-lists/two-bits/entries/16', { status: 1 }, /out of the range/],
    ['negative index', () => '/vc/status-lists/two-bits/entries/-1', { status: 1 }, /index/],
    ['index not a number', () => '/vc/status-lists/two-bits/entries/first', { status: 1 }, /index/],
    [
      'status too wide for 2 bits',
      () => `/vc/status-lists/two-bits/entries/${index}`,
      { status: 4 },
      /does not fit in 2 bits/,
    ],
    ['negative status', () => `/vc/status-lists/two-bits/entries/${index}`, { status: -1 }, /does not fit/],
    ['unknown status name', () => `/vc/status-lists/two-bits/entries/${index}`, { status: 'paused' }, /Unknown status/],
    [
      'reason with free text',
      () => `/vc/status-lists/two-bits/entries/${index}`,
      { status: 1, reason: 'Ada Lovelace asked' },
      /reason/,
    ],
    ['no status', () => `/vc/status-lists/two-bits/entries/${index}`, {}, /status/],
  ];

  it.each(ENTRY_CASES)('PUT an entry: %s → 400, nothing written', async (_name, url, body, message) => {
    const before = await snapshot();
    const response = await call(bed.app, 'PUT', url(), bed.tokens.admin, body);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
    expect(response.json().error_description).toMatch(message);
    await unchanged(before);
    const read = await call(bed.app, 'GET', `/vc/status-lists/two-bits/entries/${neighbour}`, bed.tokens.admin);
    expect(read.json()).toMatchObject({ value: 2, status: 'suspended' });
  });
});
