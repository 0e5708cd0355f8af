import { createRoleApp, type RoleApp } from '@tessera/platform';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerDesignsRoutes } from '../src/index.js';
import { credentialDesign, designsConfig, startDesignsBed, type DesignsBed } from './support.js';

const CREDENTIALS = '/api/v1/designs/credentials';
const RESOLVE = `${CREDENTIALS}/resolve`;
const VARIANTS = '/api/v1/designs/render/variants';

/**
 * The resolve cache (commands/resolve-cache.ts) across apps: two designs apps on one platform, each with its own
 * cache. Every write goes through one, every read of a warm cache through the other, and each read must show the
 * write committed before it, as an uncached resolve (a third app keeping nothing) does, byte for byte: the writer's
 * announcement reaches every cache of its process at once. Separate processes, which learn of a write through the
 * database's notification, are in resolve-invalidation.test.ts.
 */
describe.each(DATABASE_KINDS)('resolve cache across replicas (%s)', (kind) => {
  let bed: DesignsBed;
  let reader: RoleApp;
  let uncached: RoleApp;

  beforeAll(async () => {
    const config = designsConfig({ tenantDefaults: { alpha: { defaultLocale: 'de', backgroundColor: '#FAFAFA' } } });
    bed = await startDesignsBed(kind, { config });
    const replica = async (maxEntries: number) => {
      const app = await createRoleApp(bed.t.platform, { role: 'designs', title: 'replica', family: 'design' });
      registerDesignsRoutes(app, bed.t.platform, { config: { ...config, resolveCache: { maxEntries } } });
      await app.ready();
      return app;
    };
    reader = await replica(1000);
    uncached = await replica(0);
  }, 120_000);
  afterAll(async () => {
    await reader?.close();
    await uncached?.close();
    await bed?.close();
  });

  const send = (app: RoleApp, method: 'POST' | 'PUT' | 'DELETE', url: string, token: string, body?: object) =>
    app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { payload: body }),
    });
  const write = (method: 'POST' | 'PUT' | 'DELETE', url: string, body?: object) =>
    send(bed.app, method, url, bed.tokens.alphaAdmin, body);
  const resolveOn = (app: RoleApp, body: object, token = bed.tokens.alphaReader) =>
    send(app, 'POST', RESOLVE, token, body);
  /** A resolve on the warm replica, twice (the second answered from its cache), held to the uncached one. */
  const resolveWarm = async (body: object, token = bed.tokens.alphaReader) => {
    const first = await resolveOn(reader, body, token);
    const second = await resolveOn(reader, body, token);
    const fresh = await resolveOn(uncached, body, token);
    expect(second.statusCode).toBe(first.statusCode);
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.statusCode).toBe(fresh.statusCode);
    expect(second.body).toBe(fresh.body);
    expect(second.headers.etag).toBe(fresh.headers.etag);
    expect(second.headers['content-type']).toBe(fresh.headers['content-type']);
    return second;
  };

  it('answers an edit of the design made on another replica, and the same bytes as an uncached resolve', async () => {
    const d = (
      await write('POST', CREDENTIALS, credentialDesign({ bindings: [{ key: 'VCT', value: 'urn:c:edit' }] }))
    ).json();
    const body = { bindingKey: 'VCT', bindingValue: 'urn:c:edit', preferredLocales: ['de-CH'] };
    const before = await resolveWarm(body);
    expect(before.statusCode).toBe(200);
    expect(before.json().display.name).toBe('Identitätsnachweis');

    const edited = await write('PUT', `${CREDENTIALS}/${d.id}`, {
      ...d,
      displays: [{ locale: 'de', name: 'Geändert' }],
    });
    expect(edited.statusCode).toBe(200);
    const after = await resolveWarm(body);
    expect(after.json().display.name).toBe('Geändert');
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.json().etag).toBe(after.headers.etag);
  });

  it('answers render variants created, updated and deleted on another replica', async () => {
    const d = (
      await write('POST', CREDENTIALS, credentialDesign({ bindings: [{ key: 'VCT', value: 'urn:c:var' }] }))
    ).json();
    const body = { designId: d.id, renderTarget: 'SIMPLE_CARD' };
    expect((await resolveWarm(body)).json().renderVariants).toEqual([]);
    const variant = { designId: d.id, renderTarget: 'SIMPLE_CARD', name: 'card', locales: [], priority: 0 };
    const created = (await write('POST', VARIANTS, variant)).json();
    expect((await resolveWarm(body)).json().renderVariants.map((v: { name: string }) => v.name)).toEqual(['card']);
    expect((await write('PUT', `${VARIANTS}/${created.id}`, { ...variant, name: 'renamed' })).statusCode).toBe(200);
    expect((await resolveWarm(body)).json().renderVariants.map((v: { name: string }) => v.name)).toEqual(['renamed']);
    expect((await write('DELETE', `${VARIANTS}/${created.id}`)).statusCode).toBe(204);
    expect((await resolveWarm(body)).json().renderVariants).toEqual([]);
  });

  it('follows a binding moved to another design, and answers 404 once the design is deleted', async () => {
    const binding = { key: 'VCT', value: 'urn:c:moved' };
    const first = (await write('POST', CREDENTIALS, credentialDesign({ bindings: [binding], alias: 'First' }))).json();
    const body = { bindingKey: 'VCT', bindingValue: 'urn:c:moved' };
    expect((await resolveWarm(body)).json().design.alias).toBe('First');

    const rebound = await write('PUT', `${CREDENTIALS}/${first.id}`, {
      ...first,
      bindings: [{ key: 'VCT', value: 'urn:c:elsewhere' }],
    });
    expect(rebound.statusCode).toBe(200);
    const second = (
      await write('POST', CREDENTIALS, credentialDesign({ bindings: [binding], alias: 'Second' }))
    ).json();
    expect((await resolveWarm(body)).json().design.id).toBe(second.id);

    expect((await write('DELETE', `${CREDENTIALS}/${second.id}`)).statusCode).toBe(204);
    const gone = await resolveWarm(body);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('NOT_FOUND_ERROR');
  });

  it("keeps tenants apart: another tenant's design with the same binding is its own answer", async () => {
    const binding = { key: 'VCT', value: 'urn:c:shared' };
    await write('POST', CREDENTIALS, credentialDesign({ bindings: [binding], alias: 'Alpha card' }));
    const body = { bindingKey: 'VCT', bindingValue: 'urn:c:shared' };
    expect((await resolveWarm(body)).json().design.alias).toBe('Alpha card');
    expect((await resolveWarm(body, bed.tokens.betaAdmin)).statusCode).toBe(404);

    const beta = await send(
      bed.app,
      'POST',
      CREDENTIALS,
      bed.tokens.betaAdmin,
      credentialDesign({ bindings: [binding], alias: 'Beta card' }),
    );
    expect(beta.statusCode).toBe(201);
    const betaResolve = await resolveWarm(body, bed.tokens.betaAdmin);
    expect(betaResolve.json().design.alias).toBe('Beta card');
    expect(betaResolve.json().design.tenantId).toBe('beta');
    expect((await resolveWarm(body)).json().design.alias).toBe('Alpha card');
  });

  it('answers 304 from a warm cache only while the ETag is current', async () => {
    const d = (
      await write('POST', CREDENTIALS, credentialDesign({ bindings: [{ key: 'VCT', value: 'urn:c:304' }] }))
    ).json();
    const body = { designId: d.id, preferredLocales: ['en'] };
    const etag = (await resolveWarm(body)).headers.etag as string;
    const conditional = (app: RoleApp) =>
      app.inject({
        method: 'POST',
        url: RESOLVE,
        headers: { authorization: `Bearer ${bed.tokens.alphaReader}`, 'if-none-match': etag },
        payload: body,
      });
    const notModified = await conditional(reader);
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    expect(notModified.headers.etag).toBe(etag);

    expect((await write('PUT', `${CREDENTIALS}/${d.id}`, { ...d, alias: 'Renamed' })).statusCode).toBe(200);
    const changed = await conditional(reader);
    expect(changed.statusCode).toBe(200);
    expect(changed.json().design.alias).toBe('Renamed');
    expect(changed.body).toBe((await conditional(uncached)).body);
  });
});
