import {
  PDFArray,
  PDFDict,
  PDFHexString,
  PDFName,
  PDFRawStream,
  PDFRef,
  PDFStream,
  PDFString,
  type PDFContext,
  type PDFObject,
} from 'pdf-lib';
import type { PdfCrypt } from './standard-security.js';

/** Small helpers over pdf-lib's object model. */
export const n = (name: string) => PDFName.of(name);

/** A PDF text string: PDFDocEncoding-safe ASCII as a literal, anything else as UTF-16BE with its BOM (§7.9.2.2). */
export function textString(value: string): PDFString | PDFHexString {
  return /^[\x20-\x7e]*$/.test(value) ? PDFString.of(escapeLiteral(value)) : PDFHexString.fromText(value);
}

const escapeLiteral = (value: string) => value.replace(/[\\()]/g, (c) => `\\${c}`);

/** The bytes of a text string read from the document (decrypted first in an encrypted one). */
export function readText(
  object: PDFObject | undefined,
  ref: PDFRef | null,
  crypt: PdfCrypt | null,
): string | undefined {
  if (!(object instanceof PDFString || object instanceof PDFHexString)) return undefined;
  let bytes: Buffer = Buffer.from(object.asBytes());
  if (crypt && ref) bytes = crypt.decrypt(ref, bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return bytes.subarray(2).swap16().toString('utf16le');
  return bytes.toString('latin1');
}

/** An array held directly or through a reference, with the reference to write back when it is indirect. */
export function arrayAt(context: PDFContext, dict: PDFDict, key: string): { array: PDFArray; ref: PDFRef | null } {
  const raw = dict.get(n(key));
  if (raw instanceof PDFRef) {
    const array = context.lookup(raw);
    if (array instanceof PDFArray) return { array, ref: raw };
  }
  if (raw instanceof PDFArray) return { array: raw, ref: null };
  const array = context.obj([]);
  dict.set(n(key), array);
  return { array, ref: null };
}

/**
 * A copy of a new object with its strings and stream encrypted for an encrypted document (ISO 32000-1 §7.6.1),
 * except the /Contents of a signature dictionary, which is never encrypted (§7.6.1 NOTE, §12.8.1).
 */
export function encryptObject(object: PDFObject, ref: PDFRef, crypt: PdfCrypt, context: PDFContext): PDFObject {
  const walk = (value: PDFObject, isSigContents: boolean): PDFObject => {
    if (value instanceof PDFString || value instanceof PDFHexString) {
      if (isSigContents) return value;
      return PDFHexString.of(crypt.encrypt(ref, value.asBytes()).toString('hex'));
    }
    if (value instanceof PDFArray) {
      const out = context.obj([]);
      for (let i = 0; i < value.size(); i++) out.push(walk(value.get(i), false));
      return out;
    }
    if (value instanceof PDFStream) {
      const contents = value.getContents();
      const dict = walk(value.dict, false) as PDFDict;
      const encrypted = crypt.encrypt(ref, contents);
      return PDFRawStream.of(dict, encrypted);
    }
    if (value instanceof PDFDict) {
      const out = PDFDict.withContext(context);
      const isSig = value.get(n('Type')) === n('Sig') || value.get(n('ByteRange')) !== undefined;
      for (const [key, entry] of value.entries()) out.set(key, walk(entry, isSig && key === n('Contents')));
      return out;
    }
    return value;
  };
  return walk(object, false);
}
