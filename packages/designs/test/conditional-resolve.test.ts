import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { validatorsOf } from '../src/domain/resolve-design.js';
import { designStore, type DesignSelector } from '../src/storage/design-store.js';
import { fixtureText } from './fixture-server.js';
import { call, credentialDesign, designsConfig, startDesignsBed, type DesignsBed } from './support.js';

const CREDENTIALS = '/api/v1/designs/credentials';
const RESOLVE = `${CREDENTIALS}/resolve`;
const VARIANTS = '/api/v1/designs/render/variants';

/**
 * A conditional resolve reads only the ETag's inputs first (storage VALIDATORS_BATCH) and answers 304 from them;
 * these tests hold that path to the full one: the same ETag from both reads, a 200 with the new ETag after any
 * change a full resolve would show, 404 and tenant isolation as on the full path.
 */
describe.each(DATABASE_KINDS)('conditional resolve (%s)', (kind) => {
  let bed: DesignsBed;

  beforeAll(async () => {
    const config = designsConfig({
      tenantDefaults: { alpha: { defaultLocale: 'de', backgroundColor: '#FAFAFA' } },
    });
    bed = await startDesignsBed(kind, { config });
  }, 120_000);
  afterAll(async () => {
    await bed?.close();
  });

  const resolve = (body: Record<string, unknown>, ifNoneMatch?: string, token = bed.tokens.alphaReader) =>
    call(bed, 'POST', RESOLVE, token, body, ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch });
  const create = async (value: string) =>
    (
      await call(
        bed,
        'POST',
        CREDENTIALS,
        bed.tokens.alphaAdmin,
        credentialDesign({ bindings: [{ key: 'VCT', value }] }),
      )
    ).json();
  const addVariant = async (designId: string, name: string) =>
    (
      await call(bed, 'POST', VARIANTS, bed.tokens.alphaAdmin, {
        designId,
        renderTarget: 'SIMPLE_CARD',
        name,
        locales: [],
        priority: 0,
      })
    ).json();

  it('reads the same ETag inputs as the full read, for designs with and without variants', async () => {
    const plain = await create('urn:conditional:plain');
    const withVariants = await create('urn:conditional:variants');
    await addVariant(withVariants.id, 'a');
    await addVariant(withVariants.id, 'b');
    const selectors: DesignSelector[] = [
      { kind: 'CREDENTIAL', key: 'VCT', value: 'urn:conditional:variants' },
      { kind: 'CREDENTIAL', designId: plain.id },
      { kind: 'CREDENTIAL', key: 'VCT', value: 'urn:conditional:none' },
      { kind: 'ISSUER', designId: plain.id },
    ];
    const [full, validators] = await bed.t.platform.db.withTenantSession('alpha', async (sql) => [
      await designStore.withVariantsBatch(sql, selectors),
      await designStore.validatorsBatch(sql, selectors),
    ]);
    expect(validators[2]).toBeNull();
    expect(validators[3]).toBeNull();
    expect(full[2]).toBeNull();
    expect(validators[0]!.variants).toHaveLength(2);
    for (const i of [0, 1]) {
      const read = full[i]!;
      expect(validators[i]).toEqual(
        validatorsOf({
          record: read.stored.record,
          revision: read.stored.revision,
          tenantDefaults: null,
          snapshot: read.stored.sourceDocument,
          inlineOca: null,
          inlineOcaDigest: null,
          variants: read.variants,
        }),
      );
    }
  });

  it('answers 304 while nothing changed, then 200 with the new ETag after a variant update or deletion', async () => {
    const d = await create('urn:conditional:changes');
    const variant = await addVariant(d.id, 'card');
    const body = { bindingKey: 'VCT', bindingValue: 'urn:conditional:changes', preferredLocales: ['de-CH'] };
    const first = await resolve(body);
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    expect((await resolve(body, etag)).statusCode).toBe(304);

    const updated = await call(bed, 'PUT', `${VARIANTS}/${variant.id}`, bed.tokens.alphaAdmin, {
      designId: d.id,
      renderTarget: 'SIMPLE_CARD',
      name: 'card, renamed',
      locales: [],
      priority: 1,
    });
    expect(updated.statusCode).toBe(200);
    const afterUpdate = await resolve(body, etag);
    expect(afterUpdate.statusCode).toBe(200);
    expect(afterUpdate.json().renderVariants.map((v: { name: string }) => v.name)).toEqual(['card, renamed']);
    const etag2 = afterUpdate.headers.etag as string;
    expect(etag2).not.toBe(etag);
    expect(afterUpdate.json().etag).toBe(etag2);
    expect((await resolve(body, etag2)).statusCode).toBe(304);

    expect((await call(bed, 'DELETE', `${VARIANTS}/${variant.id}`, bed.tokens.alphaAdmin)).statusCode).toBe(204);
    const afterDelete = await resolve(body, etag2);
    expect(afterDelete.statusCode).toBe(200);
    expect(afterDelete.json().renderVariants).toEqual([]);
    expect(afterDelete.headers.etag).not.toBe(etag2);
  });

  it('answers 200 after an edit of the design, and the 304 of the new ETag equals a full resolve', async () => {
    const d = await create('urn:conditional:edit');
    const body = { designId: d.id, preferredLocales: ['en'] };
    const etag = (await resolve(body)).headers.etag as string;
    const edited = await call(bed, 'PUT', `${CREDENTIALS}/${d.id}`, bed.tokens.alphaAdmin, {
      ...d,
      displays: [{ locale: 'en', name: 'Edited' }],
    });
    expect(edited.statusCode).toBe(200);
    const after = await resolve(body, etag);
    expect(after.statusCode).toBe(200);
    expect(after.json().display.name).toBe('Edited');
    const fresh = await resolve(body);
    expect(fresh.headers.etag).toBe(after.headers.etag);
    const notModified = await resolve(body, fresh.headers.etag as string);
    expect(notModified.statusCode).toBe(304);
    expect(notModified.headers.etag).toBe(fresh.headers.etag);
  });

  it('answers 404 for an unknown or deleted design and for another tenant, whatever If-None-Match holds', async () => {
    const d = await create('urn:conditional:gone');
    const body = { bindingKey: 'VCT', bindingValue: 'urn:conditional:gone' };
    const etag = (await resolve(body)).headers.etag as string;
    // The other tenant's administrator names the design by binding and by id, with its current ETag.
    for (const named of [body, { designId: d.id }]) {
      const foreign = await resolve(named, etag, bed.tokens.betaAdmin);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().code).toBe('NOT_FOUND_ERROR');
    }
    expect((await resolve({ bindingKey: 'VCT', bindingValue: 'urn:conditional:unknown' }, '*')).statusCode).toBe(404);
    expect((await call(bed, 'DELETE', `${CREDENTIALS}/${d.id}`, bed.tokens.alphaAdmin)).statusCode).toBe(204);
    const gone = await resolve(body, etag);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('NOT_FOUND_ERROR');
  });

  it('keeps the request inputs in the ETag on the conditional path: another locale or inline bundle is a 200', async () => {
    await create('urn:conditional:inputs');
    const body = { bindingKey: 'VCT', bindingValue: 'urn:conditional:inputs', preferredLocales: ['de'] };
    const etag = (await resolve(body)).headers.etag as string;
    expect((await resolve(body, etag)).statusCode).toBe(304);
    expect((await resolve({ ...body, preferredLocales: ['en'] }, etag)).statusCode).toBe(200);
    expect((await resolve({ ...body, renderTarget: 'SVG' }, etag)).statusCode).toBe(200);
    const bundle = JSON.parse(fixtureText('oca-bundle.json'));
    const inline = await resolve({ ...body, externalMetadata: { ocaBundle: bundle } }, etag);
    expect(inline.statusCode).toBe(200);
    expect(inline.headers.etag).not.toBe(etag);
    expect(
      (await resolve({ ...body, externalMetadata: { ocaBundle: bundle } }, inline.headers.etag as string)).statusCode,
    ).toBe(304);
  });
});
