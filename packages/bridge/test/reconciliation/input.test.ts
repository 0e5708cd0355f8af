import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { startReconBed, unique, type ApiRequest, type ReconBed } from './support/recon-bed.js';

/**
 * Hostile and malformed input (security checklist "External API, tenancy, input"): malformed JSON, wrong content
 * types, deep nesting, duplicate names, invalid UTF-8, oversized bodies, bad parameters. Every one answers 4xx with
 * the `{error, error_description}` body, never 5xx, and stores nothing.
 */
const JSON_TYPE = { 'content-type': 'application/json' };
const deep = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe.each(DATABASE_KINDS)('reconciliation API input (%s)', (kind) => {
  let bed: ReconBed;
  let token: string;
  let id: string;
  let hash: string;

  beforeAll(async () => {
    bed = await startReconBed({ kind });
    token = await bed.ourToken('recon-full');
    const serviceId = unique('input');
    id = await bed.createIdentity({ service_id: serviceId });
    hash = await bed.hash(serviceId);
  });
  afterAll(async () => bed?.close());

  /** Sends each request, checks 4xx with an error body; answers the statuses. */
  async function refuseAll(requests: Array<[string, Omit<ApiRequest, 'token'>]>): Promise<Record<string, number>> {
    const statuses: Record<string, number> = {};
    for (const [name, request] of requests) {
      const res = await bed.call({ ...request, token });
      statuses[name] = res.status;
      expect(res.status, name).toBeGreaterThanOrEqual(400);
      expect(res.status, name).toBeLessThan(500);
      expect(res.body, name).toEqual(
        expect.objectContaining({ error: expect.any(String), error_description: expect.any(String) }),
      );
    }
    return statuses;
  }

  it('POST /lookup: malformed, mistyped, duplicated, deep, non-UTF-8 and oversized bodies are 4xx', async () => {
    const lookup = (body: unknown, headers: Record<string, string> = JSON_TYPE): Omit<ApiRequest, 'token'> => ({
      method: 'POST',
      path: '/lookup',
      body,
      headers,
    });
    const valid = `{"identifierHash":"${hash}","identifierType":"SERVICE_ID"}`;
    const statuses = await refuseAll([
      ['truncated', lookup(valid.slice(0, -1))],
      ['not json', lookup('identifierHash=x')],
      ['empty', lookup('')],
      ['whitespace', lookup('   ')],
      ['null', lookup('null')],
      ['array', lookup(`[${valid}]`)],
      ['string', lookup('"SERVICE_ID"')],
      ['trailing garbage', lookup(`${valid} {}`)],
      ['missing type', lookup(`{"identifierHash":"${hash}"}`)],
      ['missing hash', lookup('{"identifierType":"SERVICE_ID"}')],
      ['unknown member', lookup(`{"identifierHash":"${hash}","identifierType":"SERVICE_ID","identifier":"raw"}`)],
      ['hash as number', lookup('{"identifierHash":12345,"identifierType":"SERVICE_ID"}')],
      ['hash as object', lookup(`{"identifierHash":{"h":"${hash}"},"identifierType":"SERVICE_ID"}`)],
      [
        'duplicate hash',
        lookup(`{"identifierHash":"${hash}","identifierHash":"${hash}","identifierType":"SERVICE_ID"}`),
      ],
      [
        'duplicate by escape',
        lookup(`{"identifierHash":"${hash}","identifier\\u0048ash":"${hash}","identifierType":"KEY"}`),
      ],
      ['proto member', lookup(`{"identifierHash":"${hash}","identifierType":"SERVICE_ID","__proto__":{"x":1}}`)],
      ['10,000 nested arrays', lookup(deep(10_000))],
      ['1,000 nested arrays', lookup(deep(1000))],
      ['10,000 nested arrays in a member', lookup(`{"identifierHash":${deep(10_000)},"identifierType":"KEY"}`)],
      ['1,000 nested objects', lookup(deepObject(1000))],
      [
        'invalid UTF-8',
        lookup(
          Buffer.concat([
            Buffer.from('{"identifierHash":"'),
            Buffer.from([0xff, 0xfe]),
            Buffer.from(`","identifierType":"KEY"}`),
          ]),
        ),
      ],
      [
        'overlong UTF-8',
        lookup(Buffer.concat([Buffer.from('{"identifierType":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')])),
      ],
      ['lone surrogate', lookup(`{"identifierHash":"\\ud800${hash.slice(1)}","identifierType":"KEY"}`)],
      ['text/plain', lookup(valid, { 'content-type': 'text/plain' })],
      [
        'form',
        lookup(`identifierHash=${hash}&identifierType=KEY`, { 'content-type': 'application/x-www-form-urlencoded' }),
      ],
      ['xml', lookup('<lookup/>', { 'content-type': 'application/xml' })],
      ['latin-1 json', lookup(valid, { 'content-type': 'application/json; charset=iso-8859-1' })],
      ['no content type', lookup(valid, {})],
      ['over the body limit', lookup(`{"identifierHash":"${hash}","identifierType":"${'K'.repeat(5000)}"}`)],
    ]);
    expect(statuses).toMatchObject({
      truncated: 400,
      'duplicate hash': 400,
      'duplicate by escape': 400,
      // 20,000 bytes are over the lookup's 4 KB limit: refused before parsing.
      '10,000 nested arrays': 413,
      '1,000 nested arrays': 400,
      'invalid UTF-8': 400,
      'text/plain': 415,
      'latin-1 json': 415,
      'over the body limit': 413,
    });
    // The same body, well formed, is answered.
    expect(
      (
        await bed.call({
          method: 'POST',
          path: '/lookup',
          token,
          body: valid,
          headers: { 'content-type': 'application/json; charset=utf-8' },
        })
      ).status,
    ).toBe(200);
  });

  it('PUT auxiliary: bad data, deep nesting, duplicates, invalid UTF-8, numbers out of range are 4xx and store nothing', async () => {
    const putRaw = (body: unknown, headers: Record<string, string> = JSON_TYPE): Omit<ApiRequest, 'token'> => ({
      method: 'PUT',
      path: `/${id}/auxiliary/crm`,
      body,
      headers,
    });
    const statuses = await refuseAll([
      ['no data', putRaw('{}')],
      ['data null', putRaw('{"data":null}')],
      ['data array', putRaw('{"data":[1,2]}')],
      ['data string', putRaw('{"data":"x"}')],
      ['data number', putRaw('{"data":1}')],
      ['unknown member', putRaw('{"data":{},"storedBy":"someone-else"}')],
      ['10,000 nested arrays', putRaw(`{"data":{"x":${deep(10_000)}}}`)],
      ['65 levels', putRaw(`{"data":${deepObject(64)}}`)],
      ['duplicate in data', putRaw('{"data":{"a":1,"b":2,"a":3}}')],
      ['duplicate deep in data', putRaw('{"data":{"a":[{"k":1,"k":2}]}}')],
      ['duplicate data', putRaw('{"data":{"a":1},"data":{"b":2}}')],
      ['proto in data', putRaw('{"data":{"__proto__":{"polluted":true}}}')],
      [
        'invalid UTF-8 in data',
        putRaw(Buffer.concat([Buffer.from('{"data":{"x":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}')])),
      ],
      ['number out of range', putRaw('{"data":{"x":1e400}}')],
      ['expiresAt as number', putRaw('{"data":{},"expiresAt":1893456000}')],
      ['expiresAt garbage', putRaw('{"data":{},"expiresAt":"soon"}')],
      ['form', putRaw('data=x', { 'content-type': 'application/x-www-form-urlencoded' })],
      ['multipart', putRaw('--b\r\n\r\n--b--', { 'content-type': 'multipart/form-data; boundary=b' })],
      ['malformed', putRaw('{"data":{"x":}')],
    ]);
    expect(statuses).toMatchObject({
      '10,000 nested arrays': 400,
      '65 levels': 400,
      'duplicate in data': 400,
      form: 415,
    });
    expect((await bed.call({ method: 'GET', path: `/${id}/auxiliary/crm`, token })).status).toBe(404);
    // At the depth limit it is accepted: 64 levels in all, the body's own object included.
    expect((await bed.call({ ...putRaw(`{"data":${deepObject(63)}}`), token })).status).toBe(201);
  });

  it('path parameters: not a UUID, bad categories, traversal are 4xx', async () => {
    const statuses = await refuseAll([
      ['not a uuid', { method: 'GET', path: '/12345' }],
      ['sql in id', { method: 'GET', path: "/1'%20OR%201=1--/claims" }],
      ['uuid with braces', { method: 'GET', path: `/{${id}}` }],
      ['category with space', { method: 'GET', path: `/${id}/auxiliary/a%20b` }],
      ['category too long', { method: 'PUT', path: `/${id}/auxiliary/${'c'.repeat(65)}`, body: { data: {} } }],
      ['category traversal', { method: 'DELETE', path: `/${id}/auxiliary/..%2F..%2Fetc` }],
      ['erase not a uuid', { method: 'DELETE', path: '/not-a-uuid' }],
      ['unknown sub-resource', { method: 'GET', path: `/${id}/everything` }],
    ]);
    expect(statuses['not a uuid']).toBe(400);
    expect(statuses['unknown sub-resource']).toBe(404);
  });
});
