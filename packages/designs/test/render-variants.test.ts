import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { call, credentialDesign, startDesignsBed, type DesignsBed } from './support.js';

const VARIANTS = '/api/v1/designs/render/variants';

describe.each(DATABASE_KINDS)('render variants (%s)', (kind) => {
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

  const variant = (over: Record<string, unknown> = {}) => ({
    designId,
    renderTarget: 'SIMPLE_CARD',
    name: 'Dark card',
    locales: ['de-ch', 'en'],
    priority: 5,
    backgroundColor: '#000000',
    textColor: '#FFFFFF',
    claimPaths: ['given_name'],
    ...over,
  });

  it('creates, reads, lists, replaces and deletes a variant', async () => {
    const created = await call(bed, 'POST', VARIANTS, bed.tokens.alphaAdmin, variant());
    expect(created.statusCode).toBe(201);
    const v = created.json();
    expect(v).toMatchObject({ ...variant(), locales: ['de-CH', 'en'], tenantId: 'alpha' });
    expect((await call(bed, 'GET', `${VARIANTS}/${v.id}`, bed.tokens.alphaReader)).json()).toEqual(v);
    const listed = await call(
      bed,
      'GET',
      `${VARIANTS}?designId=${designId}&renderTarget=SIMPLE_CARD`,
      bed.tokens.alphaReader,
    );
    expect(listed.json().map((x: { id: string }) => x.id)).toEqual([v.id]);
    expect((await call(bed, 'GET', `${VARIANTS}?renderTarget=SVG`, bed.tokens.alphaReader)).json()).toEqual([]);
    const replaced = await call(bed, 'PUT', `${VARIANTS}/${v.id}`, bed.tokens.alphaAdmin, {
      ...v,
      name: 'Light card',
      locales: [],
    });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toMatchObject({ id: v.id, name: 'Light card', locales: [], createdAt: v.createdAt });
    expect((await call(bed, 'DELETE', `${VARIANTS}/${v.id}`, bed.tokens.alphaAdmin)).statusCode).toBe(204);
    expect((await call(bed, 'GET', `${VARIANTS}/${v.id}`, bed.tokens.alphaReader)).json().code).toBe('NOT_FOUND_ERROR');
    expect((await call(bed, 'DELETE', `${VARIANTS}/${v.id}`, bed.tokens.alphaAdmin)).statusCode).toBe(404);
  });

  it('refuses bad bodies naming the field, an unknown design, another tenant and readers', async () => {
    for (const [over, field] of [
      [{ renderTarget: 'HOLOGRAM' }, 'renderTarget'],
      [{ locales: ['not a locale'] }, 'locales.0'],
      [{ designId: 'nope' }, 'designId'],
      [{ designId: '00000000-0000-4000-8000-000000000000' }, 'designId'],
      [{ template: { assetType: 'LOGO', locale: 'en' } }, 'template.assetType'],
    ] as const) {
      const res = await call(bed, 'POST', VARIANTS, bed.tokens.alphaAdmin, variant(over));
      expect(res.statusCode, field).toBe(400);
      expect(res.json(), field).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field });
    }
    // Tenant beta cannot attach a variant to alpha's design, nor see alpha's variants.
    const foreign = await call(bed, 'POST', VARIANTS, bed.tokens.betaAdmin, variant());
    expect(foreign.json()).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field: 'designId' });
    const mine = (await call(bed, 'POST', VARIANTS, bed.tokens.alphaAdmin, variant())).json();
    expect((await call(bed, 'GET', `${VARIANTS}/${mine.id}`, bed.tokens.betaAdmin)).statusCode).toBe(404);
    expect((await call(bed, 'PUT', `${VARIANTS}/${mine.id}`, bed.tokens.betaAdmin, variant())).statusCode).toBe(404);
    expect((await call(bed, 'DELETE', `${VARIANTS}/${mine.id}`, bed.tokens.betaAdmin)).statusCode).toBe(404);
    expect((await call(bed, 'POST', VARIANTS, bed.tokens.alphaReader, variant())).statusCode).toBe(403);
    // Deleting the design deletes its variants.
    expect(
      (await call(bed, 'DELETE', `/api/v1/designs/credentials/${designId}`, bed.tokens.alphaAdmin)).statusCode,
    ).toBe(204);
    expect((await call(bed, 'GET', `${VARIANTS}/${mine.id}`, bed.tokens.alphaAdmin)).statusCode).toBe(404);
  });
});
