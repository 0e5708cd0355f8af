import {
  PDFArray,
  PDFDict,
  PDFHexString,
  PDFNumber,
  PDFRef,
  type PDFDocument,
  type PDFObject,
  type PDFPage,
} from 'pdf-lib';
import { badRequest } from '../domain/errors.js';
import { docMdpPermission, pdfDate, parseTimeZone, type WirePadesParameters } from '../domain/pades-parameters.js';
import { drawAppearance } from './appearance.js';
import { fieldBoxOf, type FieldBox } from './field-box.js';
import { lastSectionSize, writeIncrementalUpdate, refKey } from './incremental-writer.js';
import { openPdf } from './open-pdf.js';
import { arrayAt, encryptObject, n, readText, textString } from './pdf-objects.js';
import type { PdfCrypt } from './standard-security.js';

/**
 * Prepares a PDF for a PAdES signature (ETSI EN 319 142-1 §5, ISO 32000-1 §12.8): a signature field (an existing
 * empty one named by fieldId, or a new one), its widget with an appearance (/AP /N, drawn here: the placeholder of
 * the libraries has none), the signature dictionary (/SubFilter /ETSI.CAdES.detached) with a /Contents placeholder
 * and /ByteRange, and for a certification signature the DocMDP transform (§12.8.2.2). Everything is written as an
 * incremental update, so that earlier signatures stay valid.
 *
 * The output depends only on the inputs (no random value, no clock): the merge step prepares the same document
 * again from the original and the signature's date and parameters, and finds the same bytes.
 */
export interface PrepareInput {
  pdf: Buffer;
  password: string | undefined;
  params: WirePadesParameters;
  signingDate: Date;
  /** Bytes reserved for the CMS SignedData in /Contents. */
  contentsBytes: number;
  /** Font files the service knows by name (configuration), for visible text. */
  fonts: Readonly<Record<string, string>>;
}

/**
 * A prepared document: the original bytes, unchanged, and the incremental update that follows them. They are kept
 * apart: joining them would copy the whole document, and hashing or encoding can walk the two parts in turn.
 */
export interface PreparedPdf {
  original: Buffer;
  update: Buffer;
  /** Offsets in the whole file (original + update), /Contents excluded (ISO 32000-1 §12.8.1). */
  byteRange: [number, number, number, number];
}

const BYTE_RANGE_PLACEHOLDER = '**********';

export async function preparePdf(input: PrepareInput): Promise<PreparedPdf> {
  const { doc, crypt } = await openPdf(input.pdf, input.password ?? input.params.passwordProtection);
  const context = doc.context;
  context.largestObjectNumber = Math.max(context.largestObjectNumber, lastSectionSize(input.pdf) - 1);
  const originalLargest = context.largestObjectNumber;
  const changed: PDFRef[] = [];
  const catalogRef = context.trailerInfo.Root as PDFRef;
  const catalog = doc.catalog;
  const params = input.params;
  const certification = params.mode === 'CERTIFICATION';

  const { acroForm, acroFormRef } = ensureAcroForm(doc, changed, catalogRef);
  const fields = arrayAt(context, acroForm, 'Fields');
  if (fields.ref) changed.push(fields.ref);
  const existingSignatures = countSignedFields(doc, fields.array);
  if (certification && existingSignatures > 0)
    throw badRequest('A certification signature must be the first signature of the document.', 'mode');
  if (hasNoChangeCertification(doc))
    throw badRequest('The document is certified with no changes permitted: it cannot be signed again.', 'origData');

  const visual = params.visualSignatureParameters;
  const fieldId = visual?.fieldParameters?.fieldId;
  const existing = fieldId === undefined ? null : findField(doc, fields.array, fieldId, crypt);
  if (existing && existing.dict.get(n('V')) !== undefined)
    throw badRequest(`The signature field ${JSON.stringify(fieldId)} is signed already.`, 'fieldId');

  const pages = doc.getPages();
  const { page, pageRef } = existing
    ? pageOfWidget(doc, pages, existing.ref)
    : pageByNumber(pages, visual?.fieldParameters?.page ?? 1);
  const box: FieldBox | null = existing ? boxOfExisting(existing.dict) : fieldBoxOf(page, visual);

  // The signature dictionary (ISO 32000-1 §12.8.1 table 252; ETSI EN 319 142-1 §5.4).
  const offsetMinutes = parseTimeZone(params.signinTimeZone);
  const sig = context.obj({
    Type: 'Sig',
    Filter: 'Adobe.PPKLite',
    SubFilter: 'ETSI.CAdES.detached',
  });
  sig.set(
    n('ByteRange'),
    context.obj([0, n(BYTE_RANGE_PLACEHOLDER), n(BYTE_RANGE_PLACEHOLDER), n(BYTE_RANGE_PLACEHOLDER)]),
  );
  sig.set(n('Contents'), PDFHexString.of('0'.repeat(input.contentsBytes * 2)));
  sig.set(n('M'), textString(pdfDate(input.signingDate, offsetMinutes)));
  if (params.reason) sig.set(n('Reason'), textString(params.reason));
  if (params.contactInfo) sig.set(n('ContactInfo'), textString(params.contactInfo));
  if (params.location) sig.set(n('Location'), textString(params.location));
  if (params.signerName) sig.set(n('Name'), textString(params.signerName));
  if (certification) {
    const transform = context.obj({ Type: 'TransformParams', V: n('1.2') });
    transform.set(n('P'), PDFNumber.of(docMdpPermission(params.certificationPermission)));
    sig.set(
      n('Reference'),
      context.obj([context.obj({ Type: 'SigRef', TransformMethod: 'DocMDP', TransformParams: transform })]),
    );
  }
  const sigRef = context.register(sig);

  const appearance = await drawAppearance(doc, page, box, visual, input.fonts);
  const appearanceRef = context.register(appearance);

  let widgetRef: PDFRef;
  if (existing) {
    widgetRef = existing.ref;
    existing.dict.set(n('V'), sigRef);
    existing.dict.set(n('AP'), context.obj({ N: appearanceRef }));
    changed.push(existing.ref);
  } else {
    const name = fieldId ?? `Signature${existingSignatures + countSignatureFields(doc, fields.array) + 1}`;
    const rect = box ? [box.x, box.y, box.x + box.width, box.y + box.height] : [0, 0, 0, 0];
    const widget = context.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Sig',
      Rect: rect,
      // Print | Locked (ISO 32000-1 §12.5.3).
      F: 132,
      P: pageRef,
    });
    widget.set(n('T'), textString(name));
    widget.set(n('V'), sigRef);
    widget.set(n('AP'), context.obj({ N: appearanceRef }));
    widgetRef = context.register(widget);
    fields.array.push(widgetRef);
    const annots = arrayAt(context, page.node, 'Annots');
    annots.array.push(widgetRef);
    changed.push(annots.ref ?? pageRef);
  }
  // SignaturesExist | AppendOnly (ISO 32000-1 §12.7.2 table 219).
  acroForm.set(n('SigFlags'), PDFNumber.of(3));
  changed.push(acroFormRef ?? catalogRef);
  if (certification) {
    catalog.set(n('Perms'), context.obj({ DocMDP: sigRef }));
    changed.push(catalogRef);
  }

  await doc.flush();
  const created: PDFRef[] = [];
  for (const [ref] of context.enumerateIndirectObjects()) if (ref.objectNumber > originalLargest) created.push(ref);

  const serialize = (ref: PDFRef, object: PDFObject) => {
    const isNew = ref.objectNumber > originalLargest;
    const out = crypt && isNew ? encryptObject(object, ref, crypt, context) : object;
    const bytes = Buffer.alloc(out.sizeInBytes());
    out.copyBytesInto(bytes, 0);
    return bytes;
  };
  const update = writeIncrementalUpdate(input.pdf, context, [...changed, ...created], serialize);
  return fillByteRange(input.pdf, update.update, update.offsets.get(refKey(sigRef))!);
}

function ensureAcroForm(
  doc: PDFDocument,
  changed: PDFRef[],
  catalogRef: PDFRef,
): { acroForm: PDFDict; acroFormRef: PDFRef | null } {
  const raw = doc.catalog.get(n('AcroForm'));
  if (raw instanceof PDFRef) {
    const dict = doc.context.lookup(raw);
    if (dict instanceof PDFDict) return { acroForm: dict, acroFormRef: raw };
  }
  if (raw instanceof PDFDict) return { acroForm: raw, acroFormRef: null };
  const acroForm = doc.context.obj({ Fields: [] });
  const ref = doc.context.register(acroForm);
  doc.catalog.set(n('AcroForm'), ref);
  changed.push(catalogRef);
  return { acroForm, acroFormRef: ref };
}

interface FieldNode {
  ref: PDFRef;
  dict: PDFDict;
}

/** Every terminal field of the form (fields with /Kids are walked, ISO 32000-1 §12.7.3.1). */
function* terminalFields(doc: PDFDocument, fields: PDFArray, depth = 0): Generator<FieldNode> {
  if (depth > 32) return;
  for (let i = 0; i < fields.size(); i++) {
    const ref = fields.get(i);
    if (!(ref instanceof PDFRef)) continue;
    const dict = doc.context.lookup(ref);
    if (!(dict instanceof PDFDict)) continue;
    const kids = dict.lookup(n('Kids'));
    if (kids instanceof PDFArray && dict.get(n('FT')) === undefined) yield* terminalFields(doc, kids, depth + 1);
    else yield { ref, dict };
  }
}

const isSignatureField = (dict: PDFDict) => dict.get(n('FT')) === n('Sig');

function countSignedFields(doc: PDFDocument, fields: PDFArray): number {
  let count = 0;
  for (const field of terminalFields(doc, fields)) if (isSignatureField(field.dict) && field.dict.get(n('V'))) count++;
  return count;
}

function countSignatureFields(doc: PDFDocument, fields: PDFArray): number {
  let count = 0;
  for (const field of terminalFields(doc, fields)) if (isSignatureField(field.dict) && !field.dict.get(n('V'))) count++;
  return count;
}

function findField(doc: PDFDocument, fields: PDFArray, fieldId: string, crypt: PdfCrypt | null): FieldNode | null {
  for (const field of terminalFields(doc, fields)) {
    if (readText(field.dict.get(n('T')), field.ref, crypt) !== fieldId) continue;
    if (!isSignatureField(field.dict))
      throw badRequest(`The field ${JSON.stringify(fieldId)} is not a signature field.`, 'fieldId');
    return field;
  }
  return null;
}

/** A DocMDP certification with P=1 forbids any later change (ISO 32000-1 §12.8.2.2). */
function hasNoChangeCertification(doc: PDFDocument): boolean {
  const perms = doc.catalog.lookup(n('Perms'));
  if (!(perms instanceof PDFDict)) return false;
  const sig = perms.lookup(n('DocMDP'));
  if (!(sig instanceof PDFDict)) return false;
  const reference = sig.lookup(n('Reference'));
  if (!(reference instanceof PDFArray)) return false;
  for (let i = 0; i < reference.size(); i++) {
    const entry = reference.lookup(i);
    if (!(entry instanceof PDFDict)) continue;
    const params = entry.lookup(n('TransformParams'));
    const p = params instanceof PDFDict ? params.lookup(n('P')) : undefined;
    if (!(p instanceof PDFNumber) || p.asNumber() === 1) return true;
  }
  return false;
}

function pageByNumber(pages: PDFPage[], number: number): { page: PDFPage; pageRef: PDFRef } {
  if (!Number.isInteger(number) || number < 1 || number > pages.length)
    throw badRequest(`The page ${number} does not exist: the document has ${pages.length} pages.`, 'page');
  const page = pages[number - 1]!;
  return { page, pageRef: page.ref };
}

function pageOfWidget(doc: PDFDocument, pages: PDFPage[], widget: PDFRef): { page: PDFPage; pageRef: PDFRef } {
  const dict = doc.context.lookup(widget) as PDFDict;
  const p = dict.get(n('P'));
  const byP = pages.find((page) => p instanceof PDFRef && refKey(page.ref) === refKey(p));
  if (byP) return { page: byP, pageRef: byP.ref };
  for (const page of pages) {
    const annots = page.node.lookup(n('Annots'));
    if (!(annots instanceof PDFArray)) continue;
    for (let i = 0; i < annots.size(); i++) {
      const a = annots.get(i);
      if (a instanceof PDFRef && refKey(a) === refKey(widget)) return { page, pageRef: page.ref };
    }
  }
  return { page: pages[0]!, pageRef: pages[0]!.ref };
}

function boxOfExisting(dict: PDFDict): FieldBox | null {
  const rect = dict.lookup(n('Rect'));
  if (!(rect instanceof PDFArray) || rect.size() !== 4) return null;
  const [x1, y1, x2, y2] = [0, 1, 2, 3].map((i) => (rect.lookup(i) as PDFNumber).asNumber()) as [
    number,
    number,
    number,
    number,
  ];
  const box = { x: Math.min(x1, x2), y: Math.min(y1, y2), width: Math.abs(x2 - x1), height: Math.abs(y2 - y1) };
  return box.width > 0 && box.height > 0 ? box : null;
}

/**
 * Writes the real /ByteRange over its placeholder (same length) in the update and answers it. The placeholder and
 * /Contents are looked for in the signature dictionary's own bytes only, as bytes (no text copy of the update).
 */
function fillByteRange(original: Buffer, update: Buffer, at: { start: number; end: number }): PreparedPdf {
  const base = original.length;
  const object = update.subarray(at.start - base, at.end - base);
  const placeholder = `[ 0 /${BYTE_RANGE_PLACEHOLDER} /${BYTE_RANGE_PLACEHOLDER} /${BYTE_RANGE_PLACEHOLDER} ]`;
  const rangeAt = object.indexOf(placeholder, 0, 'latin1');
  const contentsAt = object.indexOf('/Contents <', 0, 'latin1');
  if (rangeAt < 0 || contentsAt < 0) throw new Error('signature placeholder not found');
  const start = at.start + contentsAt + '/Contents '.length;
  const close = update.indexOf('>', start - base, 'latin1');
  if (close < 0) throw new Error('signature placeholder not found');
  const end = base + close + 1;
  const length = base + update.length;
  const byteRange: [number, number, number, number] = [0, start, end, length - end];
  const text = `[${byteRange.join(' ')}]`;
  if (text.length > placeholder.length) throw new Error('byte range too long');
  update.write(text.padEnd(placeholder.length, ' '), at.start - base + rangeAt, 'latin1');
  return { original, update, byteRange };
}

/** The parts of the update the signature covers: before and after the /Contents value (ISO 32000-1 §12.8.1). */
export function coveredUpdateParts(prepared: PreparedPdf): [Buffer, Buffer] {
  const base = prepared.original.length;
  const [, start, end] = prepared.byteRange;
  return [prepared.update.subarray(0, start - base), prepared.update.subarray(end - base)];
}

/** The bytes a signature covers: everything but the /Contents value (the original, then the covered update). */
export function byteRangeContent(prepared: PreparedPdf): Buffer {
  return Buffer.concat([prepared.original, ...coveredUpdateParts(prepared)]);
}

/**
 * The signed document, base64: the original followed by the update with the DER CMS in its /Contents placeholder
 * (hex, zero-padded). The prepared update is not changed (it may be shared, flow/prepared-updates.ts), and the 1 MiB
 * original is not copied: it is encoded up to a multiple of 3 bytes, its last bytes with the update. When the
 * caller has the original's base64 text as Buffer#toString writes it (`originalBase64`), that part is a slice of
 * the text (no copy, no encoding: about a third of the merge's own work on a 1 MiB document, issue 21 bench).
 */
export function signedPdfBase64(prepared: PreparedPdf, cms: Buffer, originalBase64?: string): string {
  const { original } = prepared;
  const base = original.length;
  const [, start, end] = prepared.byteRange;
  const room = (end - start - 2) / 2;
  if (cms.length > room) throw new Error(`the signature (${cms.length} bytes) exceeds its placeholder (${room})`);
  const update = Buffer.from(prepared.update);
  update.write(cms.toString('hex').padEnd(room * 2, '0'), start - base + 1, 'latin1');
  const split = base - (base % 3);
  const head =
    originalBase64 === undefined
      ? original.subarray(0, split).toString('base64')
      : originalBase64.slice(0, (split / 3) * 4);
  return head + Buffer.concat([original.subarray(split), update]).toString('base64');
}
