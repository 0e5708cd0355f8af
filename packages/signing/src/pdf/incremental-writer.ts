import type { PDFArray } from 'pdf-lib';
import { PDFDict, PDFName, PDFNumber, type PDFContext, type PDFObject, type PDFRef } from 'pdf-lib';

/**
 * Writes changed and new objects as an incremental update (ISO 32000-1 §7.5.6): the original bytes stay as they are,
 * followed by the objects, a cross-reference section for just those objects, and a trailer whose /Prev points at the
 * previous section. An earlier signature's byte range is untouched, so it stays valid (issue 21 §3).
 */
export interface IncrementalUpdate {
  /** The bytes that follow the original: the signed file is the original, then these (never copied together here). */
  update: Buffer;
  /** Where each written object starts and ends, as offsets in the whole file (original + update). */
  offsets: Map<string, { start: number; end: number }>;
}

export const refKey = (ref: PDFRef) => `${ref.objectNumber} ${ref.generationNumber}`;

export function writeIncrementalUpdate(
  original: Buffer,
  context: PDFContext,
  refs: readonly PDFRef[],
  serialize: (ref: PDFRef, object: PDFObject) => Buffer = plainBytes,
): IncrementalUpdate {
  const chunks: Buffer[] = [];
  let offset = original.length;
  const push = (chunk: Buffer) => {
    chunks.push(chunk);
    offset += chunk.length;
  };
  // The update starts on a new line (the original may end without an end-of-line marker).
  if (original[original.length - 1] !== 0x0a) push(Buffer.from('\n'));

  const unique = [...new Map(refs.map((ref) => [refKey(ref), ref])).values()].sort(
    (a, b) => a.objectNumber - b.objectNumber,
  );
  const offsets = new Map<string, { start: number; end: number }>();
  for (const ref of unique) {
    const object = context.lookup(ref);
    if (object === undefined) throw new Error(`object ${refKey(ref)} is not in the document`);
    const start = offset;
    push(Buffer.from(`${ref.objectNumber} ${ref.generationNumber} obj\n`, 'latin1'));
    push(serialize(ref, object));
    push(Buffer.from('\nendobj\n', 'latin1'));
    offsets.set(refKey(ref), { start, end: offset });
  }

  const xrefOffset = offset;
  const lines: string[] = ['xref'];
  // Consecutive object numbers share a subsection.
  for (let i = 0; i < unique.length;) {
    let j = i;
    while (j + 1 < unique.length && unique[j + 1]!.objectNumber === unique[j]!.objectNumber + 1) j++;
    lines.push(`${unique[i]!.objectNumber} ${j - i + 1}`);
    for (let k = i; k <= j; k++) {
      const ref = unique[k]!;
      const at = offsets.get(refKey(ref))!.start;
      lines.push(`${String(at).padStart(10, '0')} ${String(ref.generationNumber).padStart(5, '0')} n\r`);
    }
    i = j + 1;
  }
  push(Buffer.from(`${lines.join('\n')}\n`, 'latin1'));

  const trailer = PDFDict.withContext(context);
  const info = context.trailerInfo;
  trailer.set(PDFName.of('Size'), PDFNumber.of(context.largestObjectNumber + 1));
  trailer.set(PDFName.of('Root'), info.Root as PDFObject);
  if (info.Encrypt) trailer.set(PDFName.of('Encrypt'), info.Encrypt);
  if (info.Info) trailer.set(PDFName.of('Info'), info.Info);
  if (info.ID) trailer.set(PDFName.of('ID'), info.ID as PDFArray);
  trailer.set(PDFName.of('Prev'), PDFNumber.of(previousXrefOffset(original)));
  push(Buffer.from(`trailer\n${trailer.toString()}\nstartxref\n${xrefOffset}\n%%EOF\n`, 'latin1'));
  return { update: Buffer.concat(chunks), offsets };
}

function plainBytes(_ref: PDFRef, object: PDFObject): Buffer {
  const bytes = Buffer.alloc(object.sizeInBytes());
  object.copyBytesInto(bytes, 0);
  return bytes;
}

/** The offset named by the last `startxref` of the file (ISO 32000-1 §7.5.5). */
export function previousXrefOffset(original: Buffer): number {
  const tail = original.subarray(Math.max(0, original.length - 2048)).toString('latin1');
  const matches = [...tail.matchAll(/startxref\s+(\d+)/g)];
  const last = matches[matches.length - 1];
  if (!last) throw new Error('no startxref');
  return Number(last[1]);
}
