import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { call, credentialDesign, startDesignsBed, type DesignsBed } from './support.js';

/**
 * The API as a whole: every route of the role is in its OpenAPI document, and hostile or malformed input to every
 * route answers a 4xx in the design envelope, never a 5xx (security checklist "External API, tenancy, input").
 */
describe.each(DATABASE_KINDS)('designs API surface (%s)', (kind) => {
  let bed: DesignsBed;
  let designId: string;
  beforeAll(async () => {
    bed = await startDesignsBed(kind);
    designId = (
      await call(bed, 'POST', '/api/v1/designs/credentials', bed.tokens.alphaAdmin, credentialDesign())
    ).json().id;
  }, 120_000);
  afterAll(async () => {
    await bed?.close();
  });

  /** The API's routes as Fastify knows them (method, path template). */
  function routes(): { method: string; url: string }[] {
    const out: { method: string; url: string }[] = [];
    const tree = bed.app.printRoutes({ commonPrefix: false, includeMeta: false });
    // printRoutes is for humans; the OpenAPI document is checked against hasRoute for each expected template below.
    expect(tree).toContain('designs');
    for (const segment of ['credentials', 'issuers', 'verifiers']) {
      const base = `/api/v1/designs/${segment}`;
      out.push(
        { method: 'POST', url: base },
        { method: 'GET', url: base },
        { method: 'POST', url: `${base}/find/binding` },
        { method: 'GET', url: `${base}/bindings/{bindingKey}/{bindingValue}` },
        { method: 'POST', url: `${base}/import` },
        { method: 'POST', url: `${base}/resolve` },
        { method: 'GET', url: `${base}/{designId}` },
        { method: 'PUT', url: `${base}/{designId}` },
        { method: 'DELETE', url: `${base}/{designId}` },
        { method: 'POST', url: `${base}/{designId}/refresh` },
      );
    }
    out.push(
      { method: 'POST', url: '/api/v1/designs/render/variants' },
      { method: 'GET', url: '/api/v1/designs/render/variants' },
      { method: 'GET', url: '/api/v1/designs/render/variants/{variantId}' },
      { method: 'PUT', url: '/api/v1/designs/render/variants/{variantId}' },
      { method: 'DELETE', url: '/api/v1/designs/render/variants/{variantId}' },
      { method: 'GET', url: '/api/v1/designs/snapshots/{snapshotId}' },
      { method: 'POST', url: '/api/v1/designs/snapshots/{snapshotId}/refresh' },
      { method: 'GET', url: '/api/v1/designs/credentials/{designId}/assets/{locale}/{assetType}' },
      { method: 'POST', url: '/api/v1/designs/credentials/{designId}/assets/{locale}/{assetType}' },
    );
    for (const r of out)
      expect(
        bed.app.hasRoute({ method: r.method as 'GET', url: r.url.replace(/\{(\w+)\}/g, ':$1') }),
        `${r.method} ${r.url} is registered`,
      ).toBe(true);
    return out;
  }

  it('publishes every route in /openapi.json, each with its schema', async () => {
    const res = await bed.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as {
      paths: Record<string, Record<string, { requestBody?: unknown; parameters?: unknown[] }>>;
    };
    const expected = routes();
    expect(expected).toHaveLength(39);
    for (const r of expected) {
      const operation = doc.paths[r.url]?.[r.method.toLowerCase()];
      expect(operation, `${r.method} ${r.url}`).toBeDefined();
      if (r.url.includes('{'))
        expect(operation!.parameters?.length, `${r.method} ${r.url} parameters`).toBeGreaterThan(0);
    }
    // Bodies are described: create, import and resolve name their members.
    const create = doc.paths['/api/v1/designs/credentials']!.post as {
      requestBody: { content: Record<string, { schema: { properties: object } }> };
    };
    expect(Object.keys(create.requestBody.content['application/json']!.schema.properties)).toEqual(
      expect.arrayContaining(['bindings', 'alias', 'hostingMode', 'displays', 'claims']),
    );
  });

  it('answers malformed and hostile input to every route with a 4xx in the design envelope, never a 5xx', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const bodies: [string, string][] = [
      ['application/json', '{"alias": '],
      ['application/json', deep],
      ['application/json', '{"__proto__": {"admin": true}, "alias": "x"}'],
      ['application/json', '{"constructor": {"prototype": {"x": 1}}}'],
      ['application/json', 'null'],
      ['application/json', '[]'],
      ['application/json', '"text"'],
      ['application/json', JSON.stringify({ bindings: 'x', alias: 1, hostingMode: [], displays: {} })],
      [
        'application/json',
        JSON.stringify({ designId: '../../etc/passwd', binding: { key: "VCT' OR 1=1 --", value: 'x' } }),
      ],
      [
        'application/json',
        JSON.stringify({
          entityType: 'CREDENTIAL',
          bindings: [],
          alias: 'x',
          sourceUrl: 'file:///etc/passwd',
          sourceType: 'JSON_SCHEMA',
        }),
      ],
      ['text/plain', 'hello'],
      ['application/xml', '<a/>'],
      ['application/json', Buffer.from([0xff, 0xfe, 0x7b, 0x7d]).toString('latin1')],
    ];
    const params: Record<string, string[]> = {
      designId: [designId, 'not-a-uuid', '%00', encodeURIComponent("' OR 1=1 --")],
      variantId: ['00000000-0000-4000-8000-000000000000', 'x'],
      snapshotId: ['00000000-0000-4000-8000-000000000000', '..%2F..'],
      bindingKey: ['VCT', '%ff'],
      bindingValue: ['x', 'a'.repeat(600)],
      locale: ['en', 'xx_YY!'],
      assetType: ['LOGO', 'EXE'],
    };
    let tried = 0;
    const failures: string[] = [];
    for (const r of routes()) {
      const urls = [
        r.url.replace(/\{(\w+)\}/g, (_m, p: string) => params[p]![0]!),
        r.url.replace(/\{(\w+)\}/g, (_m, p: string) => params[p]![1]!),
      ];
      for (const url of urls) {
        for (const token of [bed.tokens.alphaAdmin, bed.tokens.betaAdmin, 'not.a.jwt']) {
          const payloads: ([string, string] | null)[] = r.method === 'GET' || r.method === 'DELETE' ? [null] : bodies;
          for (const payload of payloads) {
            const res = await bed.app.inject({
              method: r.method as 'GET',
              url: `${url}${r.method === 'GET' ? '?limit=-1&offset=x&entityType=%00' : ''}`,
              headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': payload[0] } : {}) },
              ...(payload ? { payload: payload[1] } : {}),
            });
            tried++;
            if (res.statusCode >= 500)
              failures.push(`${r.method} ${url} ${payload?.[1].slice(0, 40)} → ${res.statusCode}`);
            else if (res.statusCode >= 400) {
              const body = res.json() as Record<string, unknown>;
              if (typeof body.code !== 'string' || typeof body.message !== 'string' || 'error' in body)
                failures.push(`${r.method} ${url} → ${res.statusCode} ${res.body.slice(0, 120)}`);
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(tried).toBeGreaterThan(1000);
  }, 120_000);
});
