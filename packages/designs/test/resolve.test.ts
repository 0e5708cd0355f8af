import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { createSourceFetcher } from '../src/import/source-fetcher.js';
import { fixtureText, startFixtureServer, type FixtureServer } from './fixture-server.js';
import { call, credentialDesign, designsConfig, startDesignsBed, type DesignsBed } from './support.js';

const CREDENTIALS = '/api/v1/designs/credentials';
const RESOLVE = `${CREDENTIALS}/resolve`;

describe.each(DATABASE_KINDS)('resolve (%s)', (kind) => {
  let bed: DesignsBed;
  let fixtures: FixtureServer;

  beforeAll(async () => {
    fixtures = await startFixtureServer();
    const config = designsConfig({
      defaultLocale: 'en',
      tenantDefaults: {
        alpha: { defaultLocale: 'de', backgroundColor: '#FAFAFA', logoUri: 'https://alpha.example/logo.png' },
      },
      import: { allowPrivateNetworkOrigins: [fixtures.origin] },
    });
    const fetcher = createSourceFetcher({ ...config.import, allowHttp: false, ca: fixtures.ca });
    bed = await startDesignsBed(kind, { config, deps: { fetcher } });
  }, 120_000);
  afterAll(async () => {
    await bed?.close();
    await fixtures?.close();
  });

  const resolve = (
    body: Record<string, unknown>,
    token = bed.tokens.alphaReader,
    headers: Record<string, string> = {},
  ) => call(bed, 'POST', RESOLVE, token, body, headers);
  const create = async (value: string, over: Record<string, unknown> = {}) =>
    (
      await call(
        bed,
        'POST',
        CREDENTIALS,
        bed.tokens.alphaAdmin,
        credentialDesign({ bindings: [{ key: 'VCT', value }], ...over }),
      )
    ).json();

  it('falls back by BCP-47 lookup: de-CH → de, unknown → the tenant default locale, then the configured one', async () => {
    const d = await create('urn:resolve:locales');
    const at = async (preferredLocales: string[]) => (await resolve({ designId: d.id, preferredLocales })).json();
    expect((await at(['de-CH'])).locale).toBe('de');
    expect((await at(['de-CH'])).display.name).toBe('Identitätsnachweis');
    expect((await at(['en-GB', 'de'])).locale).toBe('en');
    expect((await at(['ja'])).locale).toBe('de');
    expect((await at(['not a tag!', 'en'])).locale).toBe('en');
    // Labels follow the same lookup; a claim without a label in the locale takes the default locale's.
    const de = await at(['de-CH']);
    expect(
      de.claims.map((c: { key: string; label: string; labelLocale: string }) => [c.key, c.label, c.labelLocale]),
    ).toEqual([
      ['given_name', 'Vorname', 'de'],
      ['birthdate', 'Date of birth', 'en'],
    ]);
    // Beta has no tenant default locale: the configured default applies.
    const beta = (
      await call(
        bed,
        'POST',
        CREDENTIALS,
        bed.tokens.betaAdmin,
        credentialDesign({ bindings: [{ key: 'VCT', value: 'urn:resolve:locales' }] }),
      )
    ).json();
    expect((await resolve({ designId: beta.id, preferredLocales: ['ja'] }, bed.tokens.betaAdmin)).json().locale).toBe(
      'en',
    );
  });

  it('names the design by id, binding, or bindingKey + bindingValue; 400 otherwise; 404 when unknown or foreign', async () => {
    const d = await create('urn:resolve:select');
    for (const body of [
      { designId: d.id },
      { binding: { key: 'VCT', value: 'urn:resolve:select' } },
      { bindingKey: 'VCT', bindingValue: 'urn:resolve:select' },
    ]) {
      const res = await resolve(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(200);
      expect(res.json().design.id).toBe(d.id);
    }
    for (const [body, field] of [
      [{}, 'designId'],
      [{ designId: d.id, bindingKey: 'VCT', bindingValue: 'x' }, 'designId'],
      [{ bindingKey: 'VCT' }, 'bindingValue'],
      [{ bindingValue: 'x' }, 'bindingKey'],
      [{ designId: d.id, renderTarget: 'HOLOGRAM' }, 'renderTarget'],
      [{ designId: d.id, preferredLocales: [{}] }, 'preferredLocales.0'],
      [{ designId: d.id, externalMetadata: { ocaBundle: { overlays: [] } } }, 'externalMetadata.ocaBundle'],
    ] as const) {
      const res = await resolve(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json(), JSON.stringify(body)).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field });
    }
    expect((await resolve({ bindingKey: 'VCT', bindingValue: 'urn:none' })).json().code).toBe('NOT_FOUND_ERROR');
    expect((await resolve({ designId: d.id }, bed.tokens.betaAdmin)).statusCode).toBe(404);
    expect((await resolve({ designId: d.id }, '')).statusCode).toBe(401);
  });

  it('applies the layers in order: tenant defaults < snapshot < stored < inline OCA, and locked fields hold', async () => {
    const imported = (
      await call(bed, 'POST', `${CREDENTIALS}/import`, bed.tokens.alphaAdmin, {
        entityType: 'CREDENTIAL',
        bindings: [{ key: 'VCT', value: 'urn:resolve:layers' }],
        alias: 'Student card',
        sourceUrl: `${fixtures.origin}/oca/student-card`,
        sourceType: 'OCA_BUNDLE',
      })
    ).json();
    // The administrator drops French and renames English; the snapshot still has French.
    const edited = (
      await call(bed, 'PUT', `${CREDENTIALS}/${imported.id}`, bed.tokens.alphaAdmin, {
        ...imported,
        displays: [{ locale: 'en', name: 'Student card (ours)' }],
      })
    ).json();
    const fr = (await resolve({ designId: edited.id, preferredLocales: ['fr'] })).json();
    expect(fr.appliedLayers).toEqual(['tenant-defaults', 'snapshot', 'stored']);
    expect(fr.locale).toBe('fr');
    expect(fr.display).toMatchObject({ name: 'Carte étudiante numérique', backgroundColor: '#003366' });
    const en = (await resolve({ designId: edited.id, preferredLocales: ['en'] })).json();
    // Stored wins over the snapshot member by member: the name is ours, the branding is the source's.
    expect(en.display).toMatchObject({ name: 'Student card (ours)', backgroundColor: '#003366' });

    // Inline OCA wins over stored unless the field is locked.
    const bundle = JSON.parse(fixtureText('oca-bundle.json'));
    bundle.overlays[0].name = 'Inline name';
    const inline = (
      await resolve({ designId: edited.id, preferredLocales: ['en'], externalMetadata: { ocaBundle: bundle } })
    ).json();
    expect(inline.appliedLayers).toEqual(['tenant-defaults', 'snapshot', 'stored', 'inline-oca']);
    expect(inline.display.name).toBe('Inline name');
    expect(inline.lockedFields).toEqual([]);
    await call(bed, 'PUT', `${CREDENTIALS}/${imported.id}`, bed.tokens.alphaAdmin, {
      ...edited,
      lockedFields: ['displays'],
    });
    const locked = (
      await resolve({ designId: edited.id, preferredLocales: ['en'], externalMetadata: { ocaBundle: bundle } })
    ).json();
    expect(locked.lockedFields).toEqual(['displays']);
    expect(locked.display.name).toBe('Student card (ours)');
    expect(locked.design.displays.map((d: { locale: string }) => d.locale)).toEqual(['en']);

    // A design without source or request metadata: tenant defaults fill what the display lacks.
    const plain = await create('urn:resolve:plain', { displays: [{ locale: 'de', name: 'Schlicht' }] });
    const resolved = (await resolve({ designId: plain.id })).json();
    expect(resolved.appliedLayers).toEqual(['tenant-defaults', 'stored']);
    expect(resolved.display).toEqual({
      locale: 'de',
      name: 'Schlicht',
      backgroundColor: '#FAFAFA',
      logo: { uri: 'https://alpha.example/logo.png' },
    });
    expect(resolved.renderHints).toMatchObject({
      backgroundColor: '#FAFAFA',
      textColor: '#000000',
      textColorDerived: true,
      logoUri: 'https://alpha.example/logo.png',
      direction: 'ltr',
    });
  });

  it('matches render variants by target and locale, best first, and derives hints from the best', async () => {
    const d = await create('urn:resolve:variants');
    const variant = async (over: Record<string, unknown>) =>
      (
        await call(bed, 'POST', '/api/v1/designs/render/variants', bed.tokens.alphaAdmin, {
          designId: d.id,
          renderTarget: 'SIMPLE_CARD',
          name: 'v',
          locales: [],
          priority: 0,
          ...over,
        })
      ).json();
    const generic = await variant({ name: 'generic' });
    const german = await variant({
      name: 'german',
      locales: ['de'],
      priority: 1,
      backgroundColor: '#101010',
      claimPaths: ['birthdate'],
    });
    await variant({ name: 'french', locales: ['fr'], priority: 9 });
    await variant({ name: 'svg', renderTarget: 'SVG', templateUri: 'https://x.example/t.svg' });
    const res = (await resolve({ designId: d.id, preferredLocales: ['de-AT'], renderTarget: 'SIMPLE_CARD' })).json();
    expect(res.renderVariants.map((v: { id: string }) => v.id)).toEqual([german.id, generic.id]);
    expect(res.renderHints).toMatchObject({
      renderTarget: 'SIMPLE_CARD',
      locale: 'de',
      backgroundColor: '#101010',
      textColor: '#FFFFFF',
      textColorDerived: true,
      primaryClaims: ['birthdate'],
    });
    const all = (await resolve({ designId: d.id, preferredLocales: ['en'] })).json();
    expect(all.renderVariants.map((v: { name: string }) => v.name).sort()).toEqual(['generic', 'svg']);
  });

  it('answers an ETag, stable across identical resolves, changed by any layer change; 304 on If-None-Match', async () => {
    const d = await create('urn:resolve:etag');
    const body = { bindingKey: 'VCT', bindingValue: 'urn:resolve:etag', preferredLocales: ['de'] };
    const first = await resolve(body);
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(first.json().etag).toBe(etag);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    expect((await resolve(body)).headers.etag).toBe(etag);

    const cached = await resolve(body, bed.tokens.alphaReader, { 'if-none-match': etag });
    expect(cached.statusCode).toBe(304);
    expect(cached.body).toBe('');
    expect(cached.headers['content-length'] ?? '0').toBe('0');
    expect(cached.headers['content-type']).toBeUndefined();
    expect(cached.headers.etag).toBe(etag);
    expect((await resolve(body, bed.tokens.alphaReader, { 'if-none-match': `"other", W/${etag}` })).statusCode).toBe(
      304,
    );
    expect((await resolve(body, bed.tokens.alphaReader, { 'if-none-match': '"other"' })).statusCode).toBe(200);

    // Another locale, a variant, an edit, inline metadata: each changes the ETag.
    const tags = new Set([etag]);
    tags.add((await resolve({ ...body, preferredLocales: ['en'] })).headers.etag as string);
    await call(bed, 'POST', '/api/v1/designs/render/variants', bed.tokens.alphaAdmin, {
      designId: d.id,
      renderTarget: 'SIMPLE_CARD',
      name: 'v',
      locales: [],
      priority: 0,
    });
    const afterVariant = (await resolve(body)).headers.etag as string;
    tags.add(afterVariant);
    await call(bed, 'PUT', `${CREDENTIALS}/${d.id}`, bed.tokens.alphaAdmin, { ...d, alias: 'Renamed' });
    tags.add((await resolve(body)).headers.etag as string);
    const bundle = JSON.parse(fixtureText('oca-bundle.json'));
    tags.add((await resolve({ ...body, externalMetadata: { ocaBundle: bundle } })).headers.etag as string);
    expect(tags.size).toBe(5);
    expect((await resolve(body, bed.tokens.alphaReader, { 'if-none-match': afterVariant })).statusCode).toBe(200);
  });

  it('resolves issuer and verifier designs too', async () => {
    await call(bed, 'POST', '/api/v1/designs/verifiers', bed.tokens.alphaAdmin, {
      bindings: [{ key: 'CLIENT_ID', value: 'verifier.example' }],
      alias: 'Verifier',
      hostingMode: 'LOCAL',
      displays: [
        { locale: 'en', name: 'Library', purpose: 'Check studies' },
        { locale: 'de', name: 'Bibliothek', purpose: 'Studium prüfen' },
      ],
    });
    const res = await call(bed, 'POST', '/api/v1/designs/verifiers/resolve', bed.tokens.alphaReader, {
      bindingKey: 'CLIENT_ID',
      bindingValue: 'verifier.example',
      preferredLocales: ['de-DE'],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      locale: 'de',
      display: { name: 'Bibliothek', purpose: 'Studium prüfen' },
      claims: [],
    });
    expect(res.json().design.claims).toBeUndefined();
  });
});
