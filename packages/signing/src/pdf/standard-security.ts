import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import {
  PDFArray,
  PDFDict,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFBool,
  PDFString,
  type PDFDocument,
  type PDFRef,
} from 'pdf-lib';
import { badRequest } from '../domain/errors.js';

/**
 * The standard security handler (ISO 32000-1 §7.6.3, ISO 32000-2 §7.6.4), enough to sign a password-protected PDF
 * and keep its protection: the file key from the user or owner password (revisions 2–4 with RC4 or AES-128, 5–6
 * with AES-256), strings of existing objects decrypted for reading, strings and streams of new objects encrypted.
 * The AES initialisation vector of a new object is derived from its key and content rather than drawn at random, so
 * that the same inputs prepare the same bytes (the merge step prepares the document again, see prepare.ts).
 */
export interface PdfCrypt {
  encrypt(ref: PDFRef, data: Uint8Array): Buffer;
  decrypt(ref: PDFRef, data: Uint8Array): Buffer;
}

const PAD = Buffer.from('28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A', 'hex');

type Method = 'RC4' | 'AESV2' | 'AESV3';

export function openStandardSecurity(doc: PDFDocument, password: string | undefined): PdfCrypt {
  const context = doc.context;
  const encrypt = context.lookup(context.trailerInfo.Encrypt);
  if (!(encrypt instanceof PDFDict)) throw badRequest('The PDF encryption dictionary cannot be read.', 'origData');
  const name = (key: string) => encrypt.lookup(PDFName.of(key));
  const filter = name('Filter');
  if (!(filter instanceof PDFName) || filter.asString() !== '/Standard')
    throw badRequest('The PDF is encrypted with a security handler other than the standard one.', 'origData');
  const num = (key: string, fallback: number) => {
    const value = name(key);
    return value instanceof PDFNumber ? value.asNumber() : fallback;
  };
  const bytes = (key: string) => {
    const value = name(key);
    return value instanceof PDFString || value instanceof PDFHexString ? Buffer.from(value.asBytes()) : Buffer.alloc(0);
  };
  const v = num('V', 0);
  const r = num('R', 2);
  const lengthBits = num('Length', 40);
  const method = cryptMethod(encrypt, v);
  const encryptMetadata = !(
    name('EncryptMetadata') instanceof PDFBool && name('EncryptMetadata')!.toString() === 'false'
  );
  const id = context.trailerInfo.ID;
  const ids = id ? context.lookup(id) : undefined;
  const id0 =
    ids instanceof PDFArray && (ids.get(0) instanceof PDFHexString || ids.get(0) instanceof PDFString)
      ? Buffer.from((ids.get(0) as PDFHexString).asBytes())
      : Buffer.alloc(0);
  const given = password ?? '';
  const o = bytes('O');
  const u = bytes('U');
  const p = num('P', 0);

  let fileKey: Buffer | null;
  if (r >= 5) fileKey = aes256FileKey(given, r, o, u, bytes('OE'), bytes('UE'));
  else {
    const n = r === 2 ? 5 : lengthBits / 8;
    const params = { r, n, o, u, p, id0, encryptMetadata };
    fileKey = rc4FamilyKey(Buffer.from(given, 'latin1'), params) ?? rc4FamilyKey(ownerToUser(given, params), params);
  }
  if (!fileKey)
    throw badRequest(
      password === undefined
        ? 'The PDF is password-protected: give its password in origData.password.'
        : 'The password of the PDF is wrong.',
      'origData.password',
    );
  return cryptFor(fileKey, method);
}

function cryptMethod(encrypt: PDFDict, v: number): Method {
  if (v === 5) return 'AESV3';
  if (v !== 4) return 'RC4';
  const cf = encrypt.lookup(PDFName.of('CF'));
  const stmf = encrypt.lookup(PDFName.of('StmF'));
  if (cf instanceof PDFDict && stmf instanceof PDFName) {
    const filter = cf.lookup(stmf);
    const cfm = filter instanceof PDFDict ? filter.lookup(PDFName.of('CFM')) : undefined;
    if (cfm instanceof PDFName && cfm.asString() === '/AESV2') return 'AESV2';
  }
  return 'RC4';
}

interface Rc4Params {
  r: number;
  n: number;
  o: Buffer;
  u: Buffer;
  p: number;
  id0: Buffer;
  encryptMetadata: boolean;
}

const padded = (password: Buffer) => Buffer.concat([password.subarray(0, 32), PAD]).subarray(0, 32);
const md5 = (...parts: Buffer[]) => createHash('md5').update(Buffer.concat(parts)).digest();

/** Algorithm 2 (file key) and Algorithms 4/5 (user password check) of ISO 32000-1 §7.6.3.3–4. */
function rc4FamilyKey(password: Buffer, params: Rc4Params): Buffer | null {
  const pBytes = Buffer.alloc(4);
  pBytes.writeInt32LE(params.p | 0);
  let hash = md5(
    padded(password),
    params.o.subarray(0, 32),
    pBytes,
    params.id0,
    params.r >= 4 && !params.encryptMetadata ? Buffer.from([0xff, 0xff, 0xff, 0xff]) : Buffer.alloc(0),
  );
  if (params.r >= 3) for (let i = 0; i < 50; i++) hash = md5(hash.subarray(0, params.n));
  const key = hash.subarray(0, params.n);
  if (params.r === 2) return rc4(key, PAD).equals(params.u.subarray(0, 32)) ? key : null;
  let x = rc4(key, md5(PAD, params.id0));
  for (let i = 1; i <= 19; i++) x = rc4(xorKey(key, i), x);
  return x.subarray(0, 16).equals(params.u.subarray(0, 16)) ? key : null;
}

/** Algorithm 7: the user password recovered from /O with the owner password. */
function ownerToUser(owner: string, params: Rc4Params): Buffer {
  let hash = md5(padded(Buffer.from(owner, 'latin1')));
  if (params.r >= 3) for (let i = 0; i < 50; i++) hash = md5(hash);
  const key = hash.subarray(0, params.n);
  if (params.r === 2) return rc4(key, params.o.subarray(0, 32));
  let x: Buffer = Buffer.from(params.o.subarray(0, 32));
  for (let i = 19; i >= 0; i--) x = rc4(xorKey(key, i), x);
  return x;
}

const xorKey = (key: Buffer, i: number) => Buffer.from(key.map((b) => b ^ i));

/** ISO 32000-2 §7.6.4.3.3 (Algorithm 2.A): the file key of revisions 5 and 6 from user or owner password. */
function aes256FileKey(password: string, r: number, o: Buffer, u: Buffer, oe: Buffer, ue: Buffer): Buffer | null {
  const pw = Buffer.from(password, 'utf8').subarray(0, 127);
  const hash = (salt: Buffer, udata: Buffer) => (r === 5 ? sha256(pw, salt, udata) : hash2B(pw, salt, udata));
  const unwrap = (key: Buffer, wrapped: Buffer) => {
    const decipher = createDecipheriv('aes-256-cbc', key, Buffer.alloc(16));
    decipher.setAutoPadding(false);
    return Buffer.concat([decipher.update(wrapped.subarray(0, 32)), decipher.final()]);
  };
  const u48 = u.subarray(0, 48);
  if (hash(o.subarray(32, 40), u48).equals(o.subarray(0, 32))) return unwrap(hash(o.subarray(40, 48), u48), oe);
  if (hash(u.subarray(32, 40), Buffer.alloc(0)).equals(u.subarray(0, 32)))
    return unwrap(hash(u.subarray(40, 48), Buffer.alloc(0)), ue);
  return null;
}

const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

/** ISO 32000-2 §7.6.4.3.4 (Algorithm 2.B). */
export function hash2B(password: Buffer, salt: Buffer, udata: Buffer): Buffer {
  let k = sha256(password, salt, udata);
  for (let round = 0; ; round++) {
    const k1 = Buffer.concat(Array.from({ length: 64 }, () => Buffer.concat([password, k, udata])));
    const cipher = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32));
    cipher.setAutoPadding(false);
    const e = Buffer.concat([cipher.update(k1), cipher.final()]);
    let sum = 0;
    for (let i = 0; i < 16; i++) sum += e[i]!;
    k = createHash(['sha256', 'sha384', 'sha512'][sum % 3]!)
      .update(e)
      .digest();
    if (round >= 63 && e[e.length - 1]! <= round - 32) break;
  }
  return k.subarray(0, 32);
}

export function rc4(key: Buffer, data: Uint8Array): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 0xff]!;
  }
  return out;
}

/** Algorithm 1 (per-object keys of RC4 and AESV2) and the AES-256 file key used as is (AESV3). */
function cryptFor(fileKey: Buffer, method: Method): PdfCrypt {
  const objectKey = (ref: PDFRef) => {
    if (method === 'AESV3') return fileKey;
    const suffix = Buffer.from([
      ref.objectNumber & 0xff,
      (ref.objectNumber >> 8) & 0xff,
      (ref.objectNumber >> 16) & 0xff,
      ref.generationNumber & 0xff,
      (ref.generationNumber >> 8) & 0xff,
    ]);
    const hash = md5(fileKey, suffix, method === 'AESV2' ? Buffer.from('sAlT', 'latin1') : Buffer.alloc(0));
    return hash.subarray(0, Math.min(fileKey.length + 5, 16));
  };
  const aes = method === 'AESV3' ? 'aes-256-cbc' : 'aes-128-cbc';
  return {
    encrypt(ref, data) {
      const key = objectKey(ref);
      if (method === 'RC4') return rc4(key, data);
      const iv = createHash('sha256').update(key).update(data).digest().subarray(0, 16);
      const cipher = createCipheriv(aes, key, iv);
      return Buffer.concat([iv, cipher.update(data), cipher.final()]);
    },
    decrypt(ref, data) {
      const key = objectKey(ref);
      if (method === 'RC4') return rc4(key, data);
      if (data.length < 32) return Buffer.alloc(0);
      const decipher = createDecipheriv(aes, key, data.subarray(0, 16));
      return Buffer.concat([decipher.update(data.subarray(16)), decipher.final()]);
    },
  };
}
