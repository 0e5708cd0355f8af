import type { PDFArray } from 'pdf-lib';
import { PDFDict, PDFName, PDFNumber, PDFRef, type PDFContext, type PDFObject } from 'pdf-lib';

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
  const previous = previousXrefOffset(original);
  const trailer = trailerOf(context, previous);
  if (usesXrefStream(original, previous)) {
    // The original's last section is a cross-reference stream (§7.5.8): the update's section is one too, as a new
    // object that lists itself, so that readers which expect one form along the /Prev chain find it (issue 21).
    const ref = PDFRef.of(context.largestObjectNumber + 1);
    const entries = [...unique.map((r) => ({ ref: r, at: offsets.get(refKey(r))!.start })), { ref, at: xrefOffset }];
    trailer.set(PDFName.of('Size'), PDFNumber.of(ref.objectNumber + 1));
    push(xrefStreamObject(ref, trailer, entries));
  } else {
    const lines: string[] = ['xref'];
    for (const run of consecutiveRuns(unique.map((r) => ({ ref: r, at: offsets.get(refKey(r))!.start })))) {
      lines.push(`${run[0]!.ref.objectNumber} ${run.length}`);
      for (const { ref, at } of run)
        lines.push(`${String(at).padStart(10, '0')} ${String(ref.generationNumber).padStart(5, '0')} n\r`);
    }
    push(Buffer.from(`${lines.join('\n')}\ntrailer\n${trailer.toString()}\n`, 'latin1'));
  }
  push(Buffer.from(`startxref\n${xrefOffset}\n%%EOF\n`, 'latin1'));
  return { update: Buffer.concat(chunks), offsets };
}

interface XrefEntry {
  ref: PDFRef;
  /** Offset of the object in the whole file. */
  at: number;
}

/** The trailer entries the update carries over (ISO 32000-1 §7.5.5, table 15), with /Prev. */
function trailerOf(context: PDFContext, previous: number): PDFDict {
  const trailer = PDFDict.withContext(context);
  const info = context.trailerInfo;
  trailer.set(PDFName.of('Size'), PDFNumber.of(context.largestObjectNumber + 1));
  trailer.set(PDFName.of('Root'), info.Root as PDFObject);
  if (info.Encrypt) trailer.set(PDFName.of('Encrypt'), info.Encrypt);
  if (info.Info) trailer.set(PDFName.of('Info'), info.Info);
  if (info.ID) trailer.set(PDFName.of('ID'), info.ID as PDFArray);
  trailer.set(PDFName.of('Prev'), PDFNumber.of(previous));
  return trailer;
}

/** Entries sorted by object number, grouped into runs of consecutive numbers (one subsection each). */
function consecutiveRuns(entries: readonly XrefEntry[]): XrefEntry[][] {
  const runs: XrefEntry[][] = [];
  for (const entry of entries) {
    const last = runs[runs.length - 1];
    const previous = last?.[last.length - 1];
    if (last && previous && entry.ref.objectNumber === previous.ref.objectNumber + 1) last.push(entry);
    else runs.push([entry]);
  }
  return runs;
}

/**
 * A cross-reference stream (ISO 32000-1 §7.5.8): the trailer entries in its dictionary, /Index naming the runs and
 * one uncompressed row per object: type 1, the offset in 4 bytes, the generation in 2. It is not encrypted (§7.6.1).
 */
function xrefStreamObject(ref: PDFRef, trailer: PDFDict, entries: readonly XrefEntry[]): Buffer {
  const runs = consecutiveRuns(entries);
  const rows = Buffer.alloc(entries.length * 7);
  let at = 0;
  for (const run of runs)
    for (const entry of run) {
      rows.writeUInt8(1, at);
      rows.writeUInt32BE(entry.at, at + 1);
      rows.writeUInt16BE(entry.ref.generationNumber, at + 5);
      at += 7;
    }
  const index = runs.map((run) => `${run[0]!.ref.objectNumber} ${run.length}`).join(' ');
  const dict = trailer
    .toString()
    .replace(/>>\s*$/, `/Type /XRef\n/W [ 1 4 2 ]\n/Index [ ${index} ]\n/Length ${rows.length}\n>>`);
  return Buffer.concat([
    Buffer.from(`${ref.objectNumber} ${ref.generationNumber} obj\n${dict}\nstream\n`, 'latin1'),
    rows,
    Buffer.from('\nendstream\nendobj\n', 'latin1'),
  ]);
}

/**
 * The /Size of the last cross-reference section (its trailer, or the dictionary of its stream): one more than the
 * highest object number the file uses (ISO 32000-1 §7.5.5, §7.5.8.2). pdf-lib does not count the object and
 * cross-reference streams it unpacks, so new objects are numbered from here, never over one of those.
 */
export function lastSectionSize(original: Buffer): number {
  const previous = previousXrefOffset(original);
  const from = usesXrefStream(original, previous) ? previous : original.indexOf('trailer', previous, 'latin1');
  const end = original.indexOf(usesXrefStream(original, previous) ? 'stream' : 'startxref', from + 1, 'latin1');
  if (from < 0 || end < 0) return 0;
  const size = /\/Size\s+(\d+)/.exec(original.subarray(from, end).toString('latin1'));
  return size ? Number(size[1]) : 0;
}

/** Whether the section at `offset` is a cross-reference stream (an object) rather than a table (`xref`). */
function usesXrefStream(original: Buffer, offset: number): boolean {
  return original.subarray(offset, offset + 4).toString('latin1') !== 'xref';
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
