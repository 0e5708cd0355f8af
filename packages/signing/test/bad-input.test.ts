import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSigningBed, type SigningBed } from './support/bed.js';
import { encryptedPdf } from './support/fixtures.js';
import { samplePdf } from './support/pdfs.js';

/**
 * Bad input (issue 21 "How it must show"; security checklist: 4xx, never 5xx): each case answers a 4xx in the oauth
 * envelope with a message that says what is wrong, and none answers 5xx.
 */
describe('bad input to the signing API (pglite)', () => {
  let bed: SigningBed;
  let pdf: Buffer;
  let protectedPdf: Buffer;
  const statuses: number[] = [];
  beforeAll(async () => {
    bed = await startSigningBed('pglite', { maxDocumentBytes: 32 * 1024 * 1024 });
    await bed.softwareEntry('bad-input-key');
    pdf = await samplePdf();
    protectedPdf = await encryptedPdf('right', 'owner-right');
  });
  afterAll(async () => {
    await bed?.close();
  });

  const binding = { kid: 'bad-input-key', signatureConfigId: 'pades', keyProviderId: 'software' };
  const determine = (content: Buffer | string, extra: Record<string, unknown> = {}, pades?: Record<string, unknown>) =>
    bed.call('POST', '/signature-input', {
      origData: {
        name: 'x.pdf',
        mimeType: 'application/pdf',
        content: Buffer.isBuffer(content) ? content.toString('base64') : content,
        ...extra,
      },
      signMode: 'DOCUMENT',
      binding,
      ...(pades ? { signatureFormParametersOverride: { padesSignatureFormParameters: pades } } : {}),
    });
  const visible = (fieldParameters: Record<string, unknown>, text = 'Signed') => ({
    visualSignatureParameters: { textParameters: { text }, fieldParameters },
  });

  const cases: Array<
    [string, () => Promise<{ status: number; body: { error?: string; error_description?: string } }>, number, RegExp]
  > = [
    ['not a PDF', () => determine(Buffer.from('hello, this is plain text')), 400, /not a PDF/],
    ['a truncated PDF', async () => determine(pdf.subarray(0, Math.floor(pdf.length / 2))), 400, /truncated/],
    [
      'a PDF whose end is garbage',
      async () => determine(Buffer.concat([pdf.subarray(0, 200), Buffer.from('\nstartxref\n999999\n%%EOF\n')])),
      400,
      /PDF/,
    ],
    [
      'a wrong password',
      async () => determine(protectedPdf, { password: 'wrong' }),
      400,
      /password of the PDF is wrong/,
    ],
    ['no password for a protected PDF', async () => determine(protectedPdf), 400, /password-protected/],
    [
      'a field off the page',
      async () => determine(pdf, {}, visible({ originX: '500f', originY: '10f', width: '200f', height: '50f' })),
      400,
      /outside the page/,
    ],
    [
      'a negative origin',
      async () => determine(pdf, {}, visible({ originX: '-5f', originY: '10f', width: '20f', height: '20f' })),
      400,
      /outside the page/,
    ],
    ['a page that does not exist', async () => determine(pdf, {}, visible({ page: 7 })), 400, /page 7 does not exist/],
    ['a malformed float', async () => determine(pdf, {}, visible({ width: 'wide' })), 400, /width must be a number/],
    [
      'a font that is nothing',
      async () =>
        determine(pdf, {}, { visualSignatureParameters: { textParameters: { text: 'x', font: 'NoSuchFont' } } }),
      400,
      /font/,
    ],
    ['text the standard font cannot show', async () => determine(pdf, {}, visible({}, 'подпись')), 400, /cannot show/],
    [
      'an image that is not PNG or JPEG',
      async () =>
        determine(
          pdf,
          {},
          {
            visualSignatureParameters: {
              image: { name: 'i', mimeType: 'image/gif', content: Buffer.from('GIF89a').toString('base64') },
            },
          },
        ),
      400,
      /PNG or JPEG/,
    ],
    ['a bad time zone', async () => determine(pdf, {}, { signinTimeZone: 'Mars/Olympus' }), 400, /signinTimeZone/],
    [
      'an unknown signature configuration',
      async () =>
        bed.call('POST', '/signature-input', {
          origData: { name: 'x', mimeType: 'text/plain', content: 'eA==' },
          signMode: 'DOCUMENT',
          binding: { ...binding, signatureConfigId: 'nope' },
        }),
      400,
      /signature configuration/,
    ],
    [
      'an unknown key entry',
      async () =>
        bed.call('POST', '/signature-input', {
          origData: { name: 'x', mimeType: 'application/pdf', content: pdf.toString('base64') },
          signMode: 'DOCUMENT',
          binding: { ...binding, kid: 'nobody' },
        }),
      404,
      /No key entry/,
    ],
    ['an unknown mode', async () => determine(pdf, {}, { mode: 'BOGUS' }), 400, /mode/],
    ['content that is not base64', async () => determine('***not base64***'), 400, /content/],
    ['an empty document', async () => determine(''), 400, /empty/],
    ['malformed JSON', async () => bed.call('POST', '/signature-input', '{"origData": '), 400, /JSON/],
    [
      'a missing binding',
      async () =>
        bed.call('POST', '/signature-input', {
          origData: { name: 'x', mimeType: 'text/plain', content: 'eA==' },
          signMode: 'DOCUMENT',
        }),
      400,
      /binding/,
    ],
    [
      'a merge with a garbage signature',
      async () =>
        bed.call('POST', '/merge', {
          origData: { name: 'x.pdf', mimeType: 'application/pdf', content: pdf.toString('base64') },
          signature: {
            value: 'AAAA',
            algorithm: 'RSA_SHA256',
            signMode: 'DOCUMENT',
            binding,
            date: new Date().toISOString(),
            signatureFormParameters: { padesSignatureFormParameters: {} },
          },
        }),
      400,
      /does not verify/,
    ],
    [
      'a merge of a stale signature',
      async () =>
        bed.call('POST', '/merge', {
          origData: { name: 'x.pdf', mimeType: 'application/pdf', content: pdf.toString('base64') },
          signature: {
            value: 'AAAA',
            algorithm: 'RSA_SHA256',
            signMode: 'DOCUMENT',
            binding,
            date: '2020-01-01T00:00:00.000Z',
            signatureFormParameters: { padesSignatureFormParameters: {} },
          },
        }),
      400,
      /old/,
    ],
    [
      'a digest of the wrong length',
      async () =>
        bed.call('POST', '/signature', {
          signInput: {
            name: 'x',
            input: 'AAAA',
            signMode: 'DIGEST',
            digestAlgorithm: 'SHA256',
            signingDate: new Date().toISOString(),
            binding: { ...binding, signatureConfigId: 'default' },
          },
        }),
      400,
      /32 bytes/,
    ],
  ];

  it.each(cases)('%s → 4xx with a clear message', async (_name, request, status, message) => {
    const res = await request();
    statuses.push(res.status);
    expect(res.status).toBe(status);
    expect(res.body.error).toEqual(expect.any(String));
    expect(res.body.error_description).toMatch(message);
  });

  it('refuses a 50 MiB upload over the 32 MiB limit with 413', async () => {
    const content = Buffer.alloc(50 * 1024 * 1024, 0x41).toString('base64');
    const res = await bed.call('POST', '/signature-input', {
      origData: { name: 'big.pdf', mimeType: 'application/pdf', content },
      signMode: 'DOCUMENT',
      binding,
    });
    statuses.push(res.status);
    expect(res.status).toBe(413);
    // Within the body limit but over the document limit (34 MiB decoded): 413 from the command.
    const over = Buffer.alloc(34 * 1024 * 1024, 0x41).toString('base64');
    const res2 = await bed.call('POST', '/signature-input', {
      origData: { name: 'big.pdf', mimeType: 'application/pdf', content: over },
      signMode: 'DOCUMENT',
      binding,
    });
    statuses.push(res2.status);
    expect(res2.status).toBe(413);
    expect(res2.body.error_description).toMatch(/exceeds the limit/);
  });

  it('answered no 5xx', () => {
    expect(statuses.length).toBe(cases.length + 2);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
  });
});
