import { PDFDocument } from 'pdf-lib';
import { invalidPdf } from '../domain/errors.js';
import { previousXrefOffset } from './incremental-writer.js';
import { openStandardSecurity, type PdfCrypt } from './standard-security.js';

export interface OpenedPdf {
  doc: PDFDocument;
  /** The decryption and encryption of an encrypted document (its protection is kept), else null. */
  crypt: PdfCrypt | null;
}

/**
 * Reads a PDF for signing. A document that is not a PDF, ends before its last cross-reference section (truncated),
 * or cannot be parsed is refused with 400; an encrypted one needs its password (ISO 32000-1 §7.6.3) and keeps its
 * protection: new objects are encrypted under the same key.
 */
export async function openPdf(bytes: Buffer, password: string | undefined): Promise<OpenedPdf> {
  const head = bytes.subarray(0, 1024).toString('latin1');
  if (!head.includes('%PDF-')) throw invalidPdf('The document is not a PDF (no %PDF- header).');
  const tail = bytes.subarray(Math.max(0, bytes.length - 1024)).toString('latin1');
  let xref: number;
  try {
    xref = previousXrefOffset(bytes);
  } catch {
    throw invalidPdf('The PDF is truncated: it has no startxref and %%EOF at its end.');
  }
  if (!tail.includes('%%EOF') || xref <= 0 || xref >= bytes.length)
    throw invalidPdf('The PDF is truncated: its end-of-file marker or cross-reference offset is missing.');
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(bytes, {
      ignoreEncryption: true,
      updateMetadata: false,
      throwOnInvalidObject: true,
    });
  } catch {
    throw invalidPdf('The document cannot be read as a PDF.');
  }
  let crypt: PdfCrypt | null = null;
  if (doc.isEncrypted) crypt = openStandardSecurity(doc, password);
  let pages: number;
  try {
    pages = doc.getPageCount();
  } catch {
    throw invalidPdf('The PDF page tree cannot be read.');
  }
  if (pages === 0) throw invalidPdf('The PDF has no page.');
  return { doc, crypt };
}
