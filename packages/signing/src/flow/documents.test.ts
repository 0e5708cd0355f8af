import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signedPdfBase64, type PreparedPdf } from '../pdf/prepare.js';
import { isCanonicalBase64 } from './documents.js';

/**
 * The signed PDF is answered with the original's own base64 text as its first part when that text is the canonical
 * encoding (issue 21 bench): the answer is the same text either way.
 */
describe('base64 of the signed document', () => {
  it('recognises the canonical encoding only', () => {
    const bytes = randomBytes(100);
    const text = bytes.toString('base64');
    expect(isCanonicalBase64(text, bytes)).toBe(true);
    expect(isCanonicalBase64(text.replace(/=+$/, ''), bytes)).toBe(false);
    expect(isCanonicalBase64(`${text.slice(0, 40)}\n${text.slice(40)}`, bytes)).toBe(false);
    // base64url decodes to the same bytes, but it is another text.
    const signs = Buffer.from([0xfb, 0xff, 0xbf]);
    expect(isCanonicalBase64(signs.toString('base64'), signs)).toBe(true);
    expect(isCanonicalBase64(signs.toString('base64url'), signs)).toBe(false);
  });

  it.each([3000, 3001, 3002])('answers the same text with and without the original text (%i bytes)', (length) => {
    const original = randomBytes(length);
    const update = Buffer.from('\n1 0 obj <</Contents <00000000>>> endobj\n', 'latin1');
    const start = original.length + update.indexOf('<0');
    const end = original.length + update.indexOf('>>>') + 1;
    const prepared: PreparedPdf = {
      original,
      update,
      byteRange: [0, start, end, original.length + update.length - end],
    };
    const cms = Buffer.from([0xab, 0xcd]);
    const plain = signedPdfBase64(prepared, cms);
    expect(signedPdfBase64(prepared, cms, original.toString('base64'))).toBe(plain);
    const signed = Buffer.from(plain, 'base64');
    expect(signed.subarray(0, length)).toEqual(original);
    expect(signed.subarray(length).toString('latin1')).toContain('<abcd0000>');
  });
});
