import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';

const run = promisify(execFile);

/**
 * A small text PDF made with pdf-lib: a classic cross-reference table, or with `xrefStream` a cross-reference stream
 * with the catalog and pages inside object streams (ISO 32000-1 §7.5.7, §7.5.8).
 */
export async function samplePdf(
  options: { pages?: number; rotate?: number; xrefStream?: boolean } = {},
): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < (options.pages ?? 1); i++) {
    const page = doc.addPage([595, 842]);
    if (options.rotate) page.setRotation({ type: 'degrees' as never, angle: options.rotate } as never);
    page.drawText(`Tessera test document, page ${i + 1}`, { x: 50, y: 780, size: 18, font, color: rgb(0, 0, 0) });
  }
  return Buffer.from(await doc.save({ useObjectStreams: options.xrefStream ?? false }));
}

export interface PdfsigSignature {
  valid: boolean;
  wholeDocument: boolean;
  text: string;
}

/** poppler's pdfsig, the independent validator: each signature's validation and whether it covers the document. */
export async function pdfsig(pdf: Buffer, password?: string): Promise<{ signatures: PdfsigSignature[]; text: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-pdfsig-'));
  try {
    const file = join(dir, 'doc.pdf');
    await writeFile(file, pdf);
    const args = [...(password ? ['-upw', password] : []), '-nocert', file];
    const { stdout } = await run('pdfsig', args).catch((error: { stdout?: string; stderr?: string }) => ({
      stdout: `${error.stdout ?? ''}${error.stderr ?? ''}`,
    }));
    const blocks = stdout.split(/^Signature #\d+:$/m).slice(1);
    return {
      text: stdout,
      signatures: blocks.map((text) => ({
        text,
        valid: /Signature Validation: Signature is Valid\./.test(text),
        wholeDocument: /Total document signed/.test(text),
      })),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Renders one page with pdftoppm at 72 dpi to raw grayscale (PGM) and answers its pixels. */
export async function renderPage(
  pdf: Buffer,
  page: number,
  password?: string,
): Promise<{ width: number; height: number; pixels: Buffer }> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-render-'));
  try {
    const file = join(dir, 'doc.pdf');
    await writeFile(file, pdf);
    const out = join(dir, 'page');
    await run('pdftoppm', [
      ...(password ? ['-upw', password] : []),
      '-f',
      String(page),
      '-l',
      String(page),
      '-r',
      '72',
      '-gray',
      '-singlefile',
      file,
      out,
    ]);
    const pgm = await readFile(`${out}.pgm`);
    const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 64).toString('latin1'))!;
    return { width: Number(header[1]), height: Number(header[2]), pixels: pgm.subarray(header[0].length) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Share of non-white pixels in a rectangle given from the page's top-left corner, in points at 72 dpi. */
export function inkIn(
  image: { width: number; pixels: Buffer },
  box: { x: number; y: number; width: number; height: number },
): number {
  let ink = 0;
  let total = 0;
  for (let y = Math.floor(box.y); y < box.y + box.height; y++)
    for (let x = Math.floor(box.x); x < box.x + box.width; x++) {
      total++;
      if (image.pixels[y * image.width + x]! < 200) ink++;
    }
  return ink / total;
}

/**
 * A solid-colour baseline JPEG (ISO/IEC 10918-1) of `width`×`height` pixels, encoded by poppler's pdftoppm from a
 * page filled with that colour: an encoder the signing code does not share.
 */
export async function solidJpeg(width: number, height: number, colour: [number, number, number]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([width, height]);
  page.drawRectangle({ x: 0, y: 0, width, height, color: rgb(colour[0] / 255, colour[1] / 255, colour[2] / 255) });
  const dir = await mkdtemp(join(tmpdir(), 'tessera-jpeg-'));
  try {
    const file = join(dir, 'solid.pdf');
    await writeFile(file, await doc.save());
    await run('pdftoppm', ['-r', '72', '-jpeg', '-singlefile', file, join(dir, 'solid')]);
    return await readFile(join(dir, 'solid.jpg'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
