import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { call, credentialDesign, startDesignsBed, type DesignsBed } from './support.js';

const BASE = '/api/v1/designs/credentials';

describe.each(DATABASE_KINDS)('credential designs (%s)', (kind) => {
  let bed: DesignsBed;
  beforeAll(async () => {
    bed = await startDesignsBed(kind);
  }, 120_000);
  afterAll(async () => {
    await bed?.close();
  });

  it('creates a design (201), with server-assigned id, tenant and timestamps, and canonical locales', async () => {
    const res = await call(bed, 'POST', BASE, bed.tokens.alphaAdmin, {
      ...credentialDesign({ bindings: [{ key: 'VCT', value: 'urn:create' }] }),
      displays: [{ locale: 'de-ch', name: 'Ausweis' }],
      tenantId: 'beta',
      id: 'chosen-by-client',
    });
    expect(res.statusCode).toBe(201);
    const record = res.json();
    expect(record).toMatchObject({
      tenantId: 'alpha',
      entityType: 'CREDENTIAL',
      bindings: [{ key: 'VCT', value: 'urn:create' }],
      alias: 'Identity credential',
      hostingMode: 'LOCAL',
      displays: [{ locale: 'de-CH', name: 'Ausweis' }],
    });
    expect(record.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(record.id).not.toBe('chosen-by-client');
    expect(record.claims).toHaveLength(2);
    expect(record.claims[0]).toEqual({
      path: [{ kind: 'Property', name: 'given_name' }],
      labels: [
        { locale: 'en', label: 'Given name' },
        { locale: 'de', label: 'Vorname' },
      ],
      mandatory: true,
      order: 1,
      valueKind: 'STRING',
      widgetHint: 'TEXT',
    });
    expect(Date.parse(record.createdAt)).not.toBeNaN();
    expect(record.updatedAt).toBe(record.createdAt);

    const read = await call(bed, 'GET', `${BASE}/${record.id}`, bed.tokens.alphaReader);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(record);
  });

  it('refuses a binding pair taken in the tenant (409 ALREADY_EXISTS_ERROR) but not one of another tenant', async () => {
    const body = credentialDesign({ bindings: [{ key: 'CREDENTIAL_CONFIGURATION_ID', value: 'dup' }] });
    expect((await call(bed, 'POST', BASE, bed.tokens.alphaAdmin, body)).statusCode).toBe(201);
    const again = await call(bed, 'POST', BASE, bed.tokens.alphaAdmin, body);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ code: 'ALREADY_EXISTS_ERROR', message: expect.any(String) });
    expect((await call(bed, 'POST', BASE, bed.tokens.betaAdmin, body)).statusCode).toBe(201);
    // The same pair on an issuer design is another registry.
    const issuer = await call(bed, 'POST', '/api/v1/designs/issuers', bed.tokens.alphaAdmin, {
      bindings: [{ key: 'CREDENTIAL_CONFIGURATION_ID', value: 'dup' }],
      alias: 'Issuer',
      hostingMode: 'LOCAL',
      displays: [{ locale: 'en', name: 'Issuer' }],
    });
    expect(issuer.statusCode).toBe(201);
  });

  it.each([
    [{ alias: '' }, 'alias'],
    [{ hostingMode: 'SOMEWHERE' }, 'hostingMode'],
    [{ bindings: [{ key: 'VCT' }] }, 'bindings.0.value'],
    [{ bindings: [{ key: 'NOPE', value: 'x' }] }, 'bindings.0.key'],
    [{ displays: [{ locale: 'english!', name: 'x' }] }, 'displays.0.locale'],
    [
      {
        displays: [
          { locale: 'en', name: 'a' },
          { locale: 'EN', name: 'b' },
        ],
      },
      'displays.1.locale',
    ],
    [{ displays: [{ locale: 'en', name: 'x', backgroundColor: 'red' }] }, 'displays.0.backgroundColor'],
    [
      { claims: [{ path: [], labels: [], mandatory: true, order: 1, valueKind: 'STRING', widgetHint: 'TEXT' }] },
      'claims.0.path',
    ],
    [
      {
        claims: [
          {
            path: [{ kind: 'Property', name: 'a' }],
            labels: [{ locale: 'xx_YY', label: 'A' }],
            mandatory: true,
            order: 1,
            valueKind: 'STRING',
            widgetHint: 'TEXT',
          },
        ],
      },
      'claims.0.labels.0.locale',
    ],
    [{ unexpected: true }, 'unexpected'],
    [
      {
        bindings: [
          { key: 'VCT', value: 'a' },
          { key: 'VCT', value: 'a' },
        ],
      },
      'bindings.1',
    ],
  ])('answers 400 ILLEGAL_ARGUMENT_ERROR naming the field for %j', async (over, field) => {
    const res = await call(bed, 'POST', BASE, bed.tokens.alphaAdmin, credentialDesign(over));
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('ILLEGAL_ARGUMENT_ERROR');
    expect(body.field).toBe(field);
  });

  it('answers 400 for a body that is not JSON, and 401 without a token', async () => {
    const broken = await bed.app.inject({
      method: 'POST',
      url: BASE,
      headers: { authorization: `Bearer ${bed.tokens.alphaAdmin}`, 'content-type': 'application/json' },
      payload: '{"alias": ',
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().code).toBe('ILLEGAL_ARGUMENT_ERROR');
    const anonymous = await call(bed, 'GET', BASE, null);
    expect(anonymous.statusCode).toBe(401);
  });

  it('denies writes to a reader of the tenant (403 POLICY_DENIED) and audits the denial', async () => {
    const res = await call(bed, 'POST', BASE, bed.tokens.alphaReader, credentialDesign());
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ code: 'POLICY_DENIED', message: expect.any(String) });
    const page = await bed.t.platform.audit.query({ tenantId: 'alpha', limit: 500 });
    expect(
      page.events.some(
        (e) => e.type === 'authorization.denied' && e.commandId === 'credential-design.rest-credential-designs.create',
      ),
    ).toBe(true);
  });

  it('finds by binding (POST find/binding and GET bindings/{k}/{v}), 404 when unbound', async () => {
    const created = (
      await call(
        bed,
        'POST',
        BASE,
        bed.tokens.alphaAdmin,
        credentialDesign({ bindings: [{ key: 'VCT', value: 'urn:find/me?x' }] }),
      )
    ).json();
    const found = await call(bed, 'POST', `${BASE}/find/binding`, bed.tokens.alphaReader, {
      key: 'VCT',
      value: 'urn:find/me?x',
    });
    expect(found.statusCode).toBe(200);
    expect(found.json().id).toBe(created.id);
    const byPath = await call(
      bed,
      'GET',
      `${BASE}/bindings/VCT/${encodeURIComponent('urn:find/me?x')}`,
      bed.tokens.alphaReader,
    );
    expect(byPath.statusCode).toBe(200);
    expect(byPath.json().id).toBe(created.id);
    const none = await call(bed, 'POST', `${BASE}/find/binding`, bed.tokens.alphaReader, {
      key: 'VCT',
      value: 'urn:none',
    });
    expect(none.statusCode).toBe(404);
    expect(none.json().code).toBe('NOT_FOUND_ERROR');
    const badBody = await call(bed, 'POST', `${BASE}/find/binding`, bed.tokens.alphaReader, { key: 'VCT' });
    expect(badBody.json()).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field: 'value' });
    // Tenant beta sees nothing of alpha's.
    expect(
      (await call(bed, 'GET', `${BASE}/bindings/VCT/${encodeURIComponent('urn:find/me?x')}`, bed.tokens.betaAdmin))
        .statusCode,
    ).toBe(404);
  });

  it('lists with the six filters; unknown enum values are silently dropped', async () => {
    for (const [alias, hostingMode, value] of [
      ['List Alpha One', 'LOCAL', 'urn:list:1'],
      ['List Alpha Two', 'EXTERNAL', 'urn:list:2'],
    ] as const)
      await call(
        bed,
        'POST',
        BASE,
        bed.tokens.alphaAdmin,
        credentialDesign({ alias, hostingMode, bindings: [{ key: 'VCT', value }] }),
      );
    const list = async (query: string) => {
      const res = await call(bed, 'GET', `${BASE}?${query}`, bed.tokens.alphaReader);
      expect(res.statusCode).toBe(200);
      return (res.json() as { alias: string }[]).map((d) => d.alias).filter((a) => a.startsWith('List Alpha'));
    };
    expect(await list('aliasContains=list alpha')).toEqual(['List Alpha One', 'List Alpha Two']);
    expect(await list('aliasContains=List&hostingMode=EXTERNAL')).toEqual(['List Alpha Two']);
    expect(await list('hostingMode=NOT_A_MODE&aliasContains=List')).toEqual(['List Alpha One', 'List Alpha Two']);
    expect(await list('bindingKey=VCT&bindingValue=urn:list:1')).toEqual(['List Alpha One']);
    expect(await list('bindingKey=WHATEVER&bindingValue=urn:list:2')).toEqual(['List Alpha Two']);
    expect(await list('entityType=CREDENTIAL&aliasContains=List')).toEqual(['List Alpha One', 'List Alpha Two']);
    expect(await list('entityType=ISSUER&aliasContains=List')).toEqual([]);
    expect(await list('entityType=BOGUS&sourceType=BOGUS&aliasContains=List')).toEqual([
      'List Alpha One',
      'List Alpha Two',
    ]);
    expect(await list('sourceType=JSON_SCHEMA&aliasContains=List')).toEqual([]);
    const beta = await call(bed, 'GET', `${BASE}?aliasContains=List%20Alpha`, bed.tokens.betaAdmin);
    expect(beta.json()).toEqual([]);
    const badLimit = await call(bed, 'GET', `${BASE}?limit=0`, bed.tokens.alphaReader);
    expect(badLimit.json()).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field: 'limit' });
  });

  it('updates (PUT replaces fields and bindings) and deletes (204, then 404)', async () => {
    const created = (
      await call(
        bed,
        'POST',
        BASE,
        bed.tokens.alphaAdmin,
        credentialDesign({ bindings: [{ key: 'VCT', value: 'urn:upd' }] }),
      )
    ).json();
    const updated = await call(bed, 'PUT', `${BASE}/${created.id}`, bed.tokens.alphaAdmin, {
      ...created,
      alias: 'Renamed',
      bindings: [{ key: 'VCT', value: 'urn:upd2' }],
      displays: [{ locale: 'fr', name: 'Pièce' }],
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({
      id: created.id,
      alias: 'Renamed',
      bindings: [{ key: 'VCT', value: 'urn:upd2' }],
      displays: [{ locale: 'fr', name: 'Pièce' }],
      createdAt: created.createdAt,
    });
    expect((await call(bed, 'GET', `${BASE}/bindings/VCT/urn:upd`, bed.tokens.alphaAdmin)).statusCode).toBe(404);
    // Tenant beta can neither change nor delete it.
    expect((await call(bed, 'PUT', `${BASE}/${created.id}`, bed.tokens.betaAdmin, credentialDesign())).statusCode).toBe(
      404,
    );
    expect((await call(bed, 'DELETE', `${BASE}/${created.id}`, bed.tokens.betaAdmin)).statusCode).toBe(404);
    expect((await call(bed, 'GET', `${BASE}/${created.id}`, bed.tokens.betaAdmin)).statusCode).toBe(404);
    // A body-less refresh or delete that names the JSON content type (curl -H on every call) has no body.
    const json = { 'content-type': 'application/json' };
    const refresh = await call(bed, 'POST', `${BASE}/${created.id}/refresh`, bed.tokens.alphaAdmin, undefined, json);
    expect(refresh.json()).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field: 'designId' });
    const deleted = await call(bed, 'DELETE', `${BASE}/${created.id}`, bed.tokens.alphaAdmin, undefined, json);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    const gone = await call(bed, 'GET', `${BASE}/${created.id}`, bed.tokens.alphaAdmin);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('NOT_FOUND_ERROR');
    expect((await call(bed, 'DELETE', `${BASE}/${created.id}`, bed.tokens.alphaAdmin)).statusCode).toBe(404);
    expect((await call(bed, 'GET', `${BASE}/not-a-uuid`, bed.tokens.alphaAdmin)).json()).toMatchObject({
      code: 'ILLEGAL_ARGUMENT_ERROR',
      field: 'designId',
    });
  });

  it('audits every mutation with the command id and the design id, without personal data', async () => {
    const created = (
      await call(
        bed,
        'POST',
        BASE,
        bed.tokens.alphaAdmin,
        credentialDesign({ bindings: [{ key: 'VCT', value: 'urn:audit' }] }),
      )
    ).json();
    await call(bed, 'DELETE', `${BASE}/${created.id}`, bed.tokens.alphaAdmin);
    const page = await bed.t.platform.audit.query({ tenantId: 'alpha', limit: 500 });
    const mine = page.events.filter((e) => e.businessIds?.designId === created.id);
    expect(mine.map((e) => e.commandId).sort()).toEqual([
      'credential-design.rest-credential-designs.create',
      'credential-design.rest-credential-designs.delete',
    ]);
    expect(mine.every((e) => e.result === 'success' && e.principalId === 'alice')).toBe(true);
  });
});
