import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { call, credentialDesign, designsConfig, startDesignsBed, type DesignsBed } from './support.js';

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1');
const HOSTILE_SVG = `<?xml version="1.0"?>
<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 50">
  <script>alert(document.cookie)</script>
  <linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient>
  <rect width="100" height="50" fill="url(#g)" onload="steal()" style="background:url(https://evil.example/x)"/>
  <image href="https://evil.example/track.png" width="1" height="1"/>
  <use xlink:href="https://evil.example/sprite.svg#icon"/>
  <use href="#g"/>
  <rect width="1" height="1" fill="url(https://evil.example/p.svg#p)"/>
  <foreignObject><iframe src="https://evil.example"></iframe></foreignObject>
  <a href="javascript:alert(1)"><text x="5" y="20">{{given_name}}</text></a>
  <text x="5" y="40" onclick="x()">&x;</text>
</svg>`;

describe.each(DATABASE_KINDS)('assets (%s)', (kind) => {
  let bed: DesignsBed;
  let designId: string;
  beforeAll(async () => {
    bed = await startDesignsBed(kind, { config: designsConfig({ assets: { maxBytes: 4096 } }) });
    designId = (
      await call(bed, 'POST', '/api/v1/designs/credentials', bed.tokens.alphaAdmin, credentialDesign())
    ).json().id;
  }, 120_000);
  afterAll(async () => {
    await bed?.close();
  });

  const path = (locale: string, type: string, id = designId) =>
    `/api/v1/designs/credentials/${id}/assets/${locale}/${type}`;
  const upload = (
    locale: string,
    type: string,
    contentType: string,
    bytes: Buffer | string,
    token = bed.tokens.alphaAdmin,
    id = designId,
  ) =>
    bed.app.inject({
      method: 'POST',
      url: path(locale, type, id),
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      payload: bytes,
    });
  const download = (locale: string, type: string, token = bed.tokens.alphaReader) =>
    bed.app.inject({ method: 'GET', url: path(locale, type), headers: { authorization: `Bearer ${token}` } });

  it('stores a logo (201 AssetReference) and serves its bytes with the stored type; BCP-47 lookup on download', async () => {
    const res = await upload('de', 'LOGO', 'image/png', PNG);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      designId,
      locale: 'de',
      assetType: 'LOGO',
      contentType: 'image/png',
      size: PNG.length,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      uri: path('de', 'LOGO'),
    });
    const got = await download('de-CH', 'LOGO');
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('image/png');
    expect(got.headers['x-content-type-options']).toBe('nosniff');
    expect(got.headers['content-language']).toBe('de');
    expect(got.rawPayload.equals(PNG)).toBe(true);
    expect((await download('fr', 'LOGO')).json().code).toBe('NOT_FOUND_ERROR');
    expect((await download('de', 'BACKGROUND_IMAGE')).statusCode).toBe(404);
  });

  it('sanitizes SVG: no script, event handlers, style, foreign content or external references; text kept', async () => {
    const res = await upload('en', 'SVG_TEMPLATE', 'image/svg+xml', HOSTILE_SVG);
    expect(res.statusCode).toBe(201);
    const svg = (await download('en', 'SVG_TEMPLATE')).body;
    expect(svg.startsWith('<svg')).toBe(true);
    for (const bad of [
      'script',
      'alert',
      'onload',
      'onclick',
      'style',
      'evil.example',
      'javascript:',
      'iframe',
      'foreignObject',
      'image',
      'ENTITY',
      'passwd',
    ])
      expect(svg, bad).not.toContain(bad);
    expect(svg).toContain('{{given_name}}');
    expect(svg).toContain('fill="url(#g)"');
    expect(svg).toContain('href="#g"');
    expect(res.json().size).toBe(Buffer.byteLength(svg));
  });

  it('checks PDF templates: a PDF, with an end marker, without active content', async () => {
    expect((await upload('en', 'PDF_TEMPLATE', 'application/pdf', PDF)).statusCode).toBe(201);
    const got = await download('en', 'PDF_TEMPLATE');
    expect(got.headers['content-type']).toBe('application/pdf');
    expect(got.rawPayload.equals(PDF)).toBe(true);
    const script = Buffer.from('%PDF-1.7\n<< /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >>\n%%EOF', 'latin1');
    expect((await upload('en', 'PDF_TEMPLATE', 'application/pdf', script)).json()).toMatchObject({
      code: 'ILLEGAL_ARGUMENT_ERROR',
      field: 'body',
    });
    expect((await upload('en', 'PDF_TEMPLATE', 'application/pdf', '%PDF-1.4 truncated')).statusCode).toBe(400);
  });

  it.each([
    ['a PNG declared as JPEG', 'LOGO', 'image/jpeg', PNG, 'body'],
    ['HTML declared as SVG', 'LOGO', 'image/svg+xml', '<html><script>x</script></html>', 'body'],
    ['a PNG as a PDF template', 'PDF_TEMPLATE', 'image/png', PNG, 'Content-Type'],
    [
      'an SVG as a PDF template',
      'PDF_TEMPLATE',
      'application/pdf',
      '<svg xmlns="http://www.w3.org/2000/svg"/>',
      'body',
    ],
    ['an empty body', 'LOGO', 'image/png', Buffer.alloc(0), 'body'],
    ['a text file', 'BACKGROUND_IMAGE', 'text/plain', 'hello', 'Content-Type'],
  ])('refuses %s with 400 naming the field', async (_label, type, contentType, bytes, field) => {
    const res = await upload('en', type, contentType, bytes);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field });
  });

  it('refuses oversized uploads (413), bad path parameters (400), unknown designs (404), readers (403), other tenants', async () => {
    const big = Buffer.concat([PNG, Buffer.alloc(5000)]);
    const tooBig = await upload('en', 'LOGO', 'image/png', big);
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json().code).toBe('PAYLOAD_TOO_LARGE');
    expect((await upload('en', 'STICKER', 'image/png', PNG)).json()).toMatchObject({
      code: 'ILLEGAL_ARGUMENT_ERROR',
      field: 'assetType',
    });
    expect((await upload('not_a_locale!', 'LOGO', 'image/png', PNG)).json()).toMatchObject({
      code: 'ILLEGAL_ARGUMENT_ERROR',
      field: 'locale',
    });
    const unknown = await upload(
      'en',
      'LOGO',
      'image/png',
      PNG,
      bed.tokens.alphaAdmin,
      '00000000-0000-4000-8000-000000000000',
    );
    expect(unknown.statusCode).toBe(404);
    expect((await upload('en', 'LOGO', 'image/png', PNG, bed.tokens.alphaReader)).statusCode).toBe(403);
    expect((await upload('en', 'LOGO', 'image/png', PNG, bed.tokens.betaAdmin)).statusCode).toBe(404);
    expect((await download('de', 'LOGO', bed.tokens.betaAdmin)).statusCode).toBe(404);
  });

  it('removes the bytes with the design', async () => {
    const id = (
      await call(bed, 'POST', '/api/v1/designs/credentials', bed.tokens.alphaAdmin, credentialDesign({ bindings: [] }))
    ).json().id;
    await upload('en', 'LOGO', 'image/png', PNG, bed.tokens.alphaAdmin, id);
    await call(bed, 'DELETE', `/api/v1/designs/credentials/${id}`, bed.tokens.alphaAdmin);
    const left = await bed.t.platform.db.withTenant('alpha', (sql) =>
      sql.query(`SELECT count(*)::int AS n FROM design_blobs WHERE starts_with(blob_key, $1)`, [`${id}/`]),
    );
    expect(left.rows[0]).toEqual({ n: 0 });
  });
});
