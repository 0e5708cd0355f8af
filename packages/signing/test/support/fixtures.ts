import { createCipheriv, createHash } from 'node:crypto';
import { deflateSync as zlibDeflate } from 'node:zlib';
import type { PDFRef } from 'pdf-lib';
import {
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFRawStream,
  PDFStream,
  PDFString,
  type PDFObject,
} from 'pdf-lib';

/** Test fixtures: a PNG made by hand, a PDF with an empty signature field, a password-protected PDF. */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes: Buffer) => {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type: string, data: Buffer) => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/** A solid-colour RGB PNG (ISO/IEC 15948). */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.concat(Array.from({ length: width }, () => Buffer.from(rgb)))]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlibDeflate(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A one-page PDF with an empty signature field `name` at the given rectangle (PDF user space). */
export async function pdfWithEmptyField(name: string, rect: [number, number, number, number]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  page.drawText('Document with a signature field', { x: 50, y: 780, size: 16 });
  const context = doc.context;
  const widget = context.obj({ Type: 'Annot', Subtype: 'Widget', FT: 'Sig', Rect: rect, F: 4, P: page.ref });
  widget.set(PDFName.of('T'), PDFString.of(name));
  const ref = context.register(widget);
  page.node.set(PDFName.of('Annots'), context.obj([ref]));
  doc.catalog.set(PDFName.of('AcroForm'), context.register(context.obj({ Fields: [ref] })));
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

const PAD = Buffer.from('28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A', 'hex');
const md5 = (...parts: Buffer[]) => createHash('md5').update(Buffer.concat(parts)).digest();
function rc4(key: Buffer, data: Buffer): Buffer {
  const cipher = [...Array(256).keys()];
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + cipher[i]! + key[i % key.length]!) & 0xff;
    [cipher[i], cipher[j]] = [cipher[j]!, cipher[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + cipher[i]!) & 0xff;
    [cipher[i], cipher[j]] = [cipher[j]!, cipher[i]!];
    out[n] = data[n]! ^ cipher[(cipher[i]! + cipher[j]!) & 0xff]!;
  }
  return out;
}

/**
 * A PDF encrypted with the standard security handler, revision 4, AES-128 (ISO 32000-1 §7.6.3, algorithms 1–5):
 * every string and stream encrypted under its object key; pdfsig and pdftoppm open it with the user password.
 */
export async function encryptedPdf(userPassword: string, ownerPassword: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  page.drawText('Confidential test document', { x: 50, y: 780, size: 18 });
  doc.setTitle('Protected');
  await doc.flush();
  const context = doc.context;
  const id0 = createHash('md5').update('tessera-encrypted-fixture').digest();
  const p = -3904; // print, modify, copy, annotate and the rest allowed, as a signed 32-bit value
  const pad = (pw: string) => Buffer.concat([Buffer.from(pw, 'latin1'), PAD]).subarray(0, 32);
  // Algorithm 3: /O.
  let ownerKey = md5(pad(ownerPassword));
  for (let i = 0; i < 50; i++) ownerKey = md5(ownerKey);
  let o = rc4(ownerKey.subarray(0, 16), pad(userPassword));
  for (let i = 1; i <= 19; i++) o = rc4(Buffer.from(ownerKey.subarray(0, 16).map((b) => b ^ i)), o);
  // Algorithm 2: the file key.
  const pBytes = Buffer.alloc(4);
  pBytes.writeInt32LE(p);
  let key = md5(pad(userPassword), o, pBytes, id0);
  for (let i = 0; i < 50; i++) key = md5(key.subarray(0, 16));
  const fileKey = key.subarray(0, 16);
  // Algorithm 5: /U.
  let u = rc4(fileKey, md5(PAD, id0));
  for (let i = 1; i <= 19; i++) u = rc4(Buffer.from(fileKey.map((b) => b ^ i)), u);
  u = Buffer.concat([u, Buffer.alloc(16)]);

  const objectKey = (ref: PDFRef) =>
    md5(
      fileKey,
      Buffer.from([ref.objectNumber & 0xff, (ref.objectNumber >> 8) & 0xff, (ref.objectNumber >> 16) & 0xff, 0, 0]),
      Buffer.from('sAlT', 'latin1'),
    );
  const aes = (ref: PDFRef, data: Uint8Array) => {
    const iv = createHash('sha256').update(data).update(String(ref.objectNumber)).digest().subarray(0, 16);
    const cipher = createCipheriv('aes-128-cbc', objectKey(ref), iv);
    return Buffer.concat([iv, cipher.update(data), cipher.final()]);
  };
  const encrypt = (ref: PDFRef, value: PDFObject): PDFObject => {
    if (value instanceof PDFString || value instanceof PDFHexString)
      return PDFHexString.of(aes(ref, value.asBytes()).toString('hex'));
    if (value instanceof PDFArray) {
      const out = context.obj([]);
      for (let i = 0; i < value.size(); i++) out.push(encrypt(ref, value.get(i)));
      return out;
    }
    if (value instanceof PDFStream)
      return PDFRawStream.of(encrypt(ref, value.dict) as PDFDict, aes(ref, value.getContents()));
    if (value instanceof PDFDict) {
      const out = PDFDict.withContext(context);
      for (const [k, v] of value.entries()) out.set(k, encrypt(ref, v));
      return out;
    }
    return value;
  };
  for (const [ref, object] of context.enumerateIndirectObjects()) context.assign(ref, encrypt(ref, object));
  const cf = context.obj({ StdCF: { CFM: 'AESV2', AuthEvent: 'DocOpen', Length: 16 } });
  const encryptDict = context.obj({
    Filter: 'Standard',
    V: 4,
    R: 4,
    Length: 128,
    P: p,
    CF: cf,
    StmF: 'StdCF',
    StrF: 'StdCF',
  });
  encryptDict.set(PDFName.of('O'), PDFHexString.of(o.toString('hex')));
  encryptDict.set(PDFName.of('U'), PDFHexString.of(u.toString('hex')));
  context.trailerInfo.Encrypt = context.register(encryptDict);
  context.trailerInfo.ID = context.obj([PDFHexString.of(id0.toString('hex')), PDFHexString.of(id0.toString('hex'))]);
  return Buffer.from(await doc.save({ useObjectStreams: false, updateFieldAppearances: false }));
}
