import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signThroughApi, startSigningBed, type SigningBed } from './support/bed.js';
import { inkIn, pdfsig, renderPage, samplePdf } from './support/pdfs.js';

/**
 * The incremental update over the cross-reference forms of ISO 32000-1 §7.5: an original with a classic table and
 * one with a cross-reference stream whose catalog and pages sit in object streams (§7.5.7, §7.5.8), multi-page,
 * signed visibly on a later page, then signed again; every signature valid by pdfsig, the field rendered.
 */
describe('PAdES over cross-reference tables and streams (pglite)', () => {
  let bed: SigningBed;
  beforeAll(async () => {
    bed = await startSigningBed('pglite');
    await bed.softwareEntry('structures-rsa');
  });
  afterAll(async () => bed?.close());

  const visibleOnPage = (page: number) => ({
    reason: 'Structures',
    visualSignatureParameters: {
      textParameters: { text: 'Signed by\nTest Signer' },
      fieldParameters: { page, originX: '60f', originY: '120f', width: '200f', height: '60f' },
    },
  });

  it.each([
    ['a cross-reference table', false],
    ['a cross-reference stream and object streams', true],
  ])('signs a three-page PDF with %s on page 3, then again; both valid, the field rendered', async (_, xrefStream) => {
    const pdf = await samplePdf({ pages: 3, xrefStream });
    expect(pdf.toString('latin1').includes('/Type /XRef')).toBe(xrefStream);
    const once = await signThroughApi(bed, { pdf, kid: 'structures-rsa', pades: visibleOnPage(3) });
    expect(once.subarray(0, pdf.length).equals(pdf)).toBe(true);
    // The update's cross-reference section takes the original's form (§7.5.8: a stream after a stream).
    const update = once.subarray(pdf.length).toString('latin1');
    expect(update.includes('/Type /XRef')).toBe(xrefStream);
    expect(/^xref$/m.test(update)).toBe(!xrefStream);
    const first = await pdfsig(once);
    expect(first.signatures).toHaveLength(1);
    expect(first.signatures[0]).toMatchObject({ valid: true, wholeDocument: true });
    const page = await renderPage(once, 3);
    expect(inkIn(page, { x: 60, y: 120, width: 200, height: 60 })).toBeGreaterThan(0.01);
    expect(inkIn(await renderPage(once, 1), { x: 60, y: 120, width: 200, height: 60 })).toBe(0);

    const twice = await signThroughApi(bed, { pdf: once, kid: 'structures-rsa', pades: visibleOnPage(2) });
    const both = await pdfsig(twice);
    expect(both.signatures.map((s) => s.valid)).toEqual([true, true]);
    expect(both.signatures[1]!.wholeDocument).toBe(true);
    expect(inkIn(await renderPage(twice, 2), { x: 60, y: 120, width: 200, height: 60 })).toBeGreaterThan(0.01);
  });
});
