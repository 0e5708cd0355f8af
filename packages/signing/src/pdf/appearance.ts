import fontkit from '@pdf-lib/fontkit';
import {
  PDFContentStream,
  StandardFonts,
  degrees,
  drawImage,
  drawLinesOfText,
  drawRectangle,
  popGraphicsState,
  pushGraphicsState,
  rgb,
  type Color as PdfColor,
  type PDFDict,
  type PDFDocument,
  type PDFFont,
  type PDFImage,
  type PDFOperator,
  type PDFPage,
  type PDFStream,
} from 'pdf-lib';
import { readFileSync } from 'node:fs';
import { badRequest } from '../domain/errors.js';
import { parseFloatString, type Color, type WireVisualParameters } from '../domain/pades-parameters.js';
import type { FieldBox } from './field-box.js';

/**
 * The visible appearance of a signature (/AP /N, ISO 32000-1 §12.5.5): background, image and signer text laid out
 * in the field as the visual parameters of 002 §2.1 ask. The image is PNG or JPEG; the text uses one of the
 * standard 14 fonts, a TrueType font configured by name, or a TrueType font given as base64, embedded (subset).
 */
const COLORS: Record<Exclude<Color, 'TRANSPARENT'>, PdfColor> = {
  WHITE: rgb(1, 1, 1),
  BLACK: rgb(0, 0, 0),
  GRAY: rgb(0.5, 0.5, 0.5),
  LIGHT_GRAY: rgb(0.75, 0.75, 0.75),
  DARK_GRAY: rgb(0.25, 0.25, 0.25),
  RED: rgb(1, 0, 0),
  GREEN: rgb(0, 0.6, 0),
  BLUE: rgb(0, 0, 1),
  YELLOW: rgb(1, 1, 0),
};
const color = (value: Color | undefined, fallback: Color | undefined): PdfColor | undefined => {
  const chosen = value ?? fallback;
  return chosen === undefined || chosen === 'TRANSPARENT' ? undefined : COLORS[chosen];
};

const DEFAULT_FONT_SIZE = 12;
const LINE_SPACING = 1.2;

export async function drawAppearance(
  doc: PDFDocument,
  page: PDFPage,
  box: FieldBox | null,
  visual: WireVisualParameters | undefined,
  fonts: Readonly<Record<string, string>>,
): Promise<PDFStream> {
  if (!box || !visual) return formXObject(doc, [], { BBox: [0, 0, 0, 0] });
  const turn = rotationOf(visual.rotation, page.getRotation().angle);
  // The appearance is drawn upright in a box whose sides follow the rotation; /Matrix turns it onto the field.
  const [w, h] = turn % 180 === 0 ? [box.width, box.height] : [box.height, box.width];
  const ops: PDFOperator[] = [];
  const resources = { Font: {} as Record<string, unknown>, XObject: {} as Record<string, unknown> };

  const background = color(visual.backgroundColor, 'WHITE');
  if (background) ops.push(...rect(0, 0, w, h, background));

  const text = visual.textParameters?.text;
  const image = visual.image ? await embedImage(doc, visual.image.content) : null;
  const padding = parseFloatString(visual.textParameters?.padding, 'padding', 5);
  let imageArea = { x: 0, y: 0, width: w, height: h };
  if (text !== undefined && text !== '') {
    const font = await embedTextFont(doc, visual.textParameters?.font, fonts);
    resources.Font.F1 = font.ref;
    const textArea = { ...imageArea };
    if (image) {
      // The text takes the side signerTextPosition names (default TOP): half of the field.
      switch (visual.textParameters?.signerTextPosition ?? 'TOP') {
        case 'TOP':
          textArea.height = h / 2;
          textArea.y = h / 2;
          imageArea = { x: 0, y: 0, width: w, height: h / 2 };
          break;
        case 'BOTTOM':
          textArea.height = h / 2;
          imageArea = { x: 0, y: h / 2, width: w, height: h / 2 };
          break;
        case 'LEFT':
          textArea.width = w / 2;
          imageArea = { x: w / 2, y: 0, width: w / 2, height: h };
          break;
        case 'RIGHT':
          textArea.width = w / 2;
          textArea.x = w / 2;
          imageArea = { x: 0, y: 0, width: w / 2, height: h };
          break;
      }
    }
    ops.push(...drawText(font, text, textArea, padding, visual));
  }
  if (image) {
    resources.XObject.Im1 = image.ref;
    ops.push(...placeImage(image, imageArea, visual));
  }
  const matrix = rotationMatrix(turn, w, h);
  return formXObject(doc, ops, { BBox: [0, 0, w, h], Matrix: matrix, Resources: resources });
}

/**
 * A form XObject (ISO 32000-1 §8.10) with its operators left uncompressed: the appearance is a few hundred bytes,
 * and deflating it (pdf-lib's formXObject) cost a large share of a preparation (issue 21 bench).
 */
function formXObject(doc: PDFDocument, ops: PDFOperator[], dict: Record<string, unknown>): PDFStream {
  const context = doc.context;
  const literal = { Matrix: [1, 0, 0, 1, 0, 0], ...dict, Type: 'XObject', Subtype: 'Form' };
  // The object overload of PDFContext.obj (its literal type is not exported): the dictionary form.
  const streamDict = (context.obj as (literal: object) => PDFDict)(literal);
  return PDFContentStream.of(streamDict, ops, false);
}

function rotationOf(rotation: WireVisualParameters['rotation'], pageRotation: number): number {
  switch (rotation) {
    case 'ROTATE_90':
      return 90;
    case 'ROTATE_180':
      return 180;
    case 'ROTATE_270':
      return 270;
    case 'NONE':
      return 0;
    default:
      // AUTOMATIC (the default) follows the page's /Rotate, so the signature reads upright on screen.
      return (((pageRotation % 360) + 360) % 360) as number;
  }
}

/** /Matrix that turns a w × h upright drawing onto the field counter to the page rotation (§8.3.3). */
function rotationMatrix(turn: number, w: number, h: number): number[] {
  switch (turn) {
    case 90:
      return [0, 1, -1, 0, h, 0];
    case 180:
      return [-1, 0, 0, -1, w, h];
    case 270:
      return [0, -1, 1, 0, 0, w];
    default:
      return [1, 0, 0, 1, 0, 0];
  }
}

const rect = (x: number, y: number, width: number, height: number, fill: PdfColor) =>
  drawRectangle({
    x,
    y,
    width,
    height,
    borderWidth: 0,
    color: fill,
    borderColor: undefined,
    rotate: degrees(0),
    xSkew: degrees(0),
    ySkew: degrees(0),
  });

async function embedImage(doc: PDFDocument, base64: string): Promise<PDFImage> {
  const bytes = Buffer.from(base64, 'base64');
  try {
    if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
      return await doc.embedPng(bytes);
    // A copy: pdf-lib's JPEG reader views the whole underlying ArrayBuffer from offset 0, and a small decoded
    // Buffer is a slice of Node's shared pool at some offset ("SOI not found in JPEG").
    if (bytes[0] === 0xff && bytes[1] === 0xd8) return await doc.embedJpg(new Uint8Array(bytes));
  } catch {
    throw badRequest('The signature image cannot be read.', 'image');
  }
  throw badRequest('The signature image must be PNG or JPEG.', 'image');
}

const STANDARD_FONTS = new Set<string>(Object.values(StandardFonts));

async function embedTextFont(
  doc: PDFDocument,
  font: string | undefined,
  fonts: Readonly<Record<string, string>>,
): Promise<PDFFont> {
  const name = font ?? StandardFonts.Helvetica;
  if (STANDARD_FONTS.has(name)) return doc.embedFont(name);
  let bytes: Buffer;
  if (Object.hasOwn(fonts, name)) bytes = readFileSync(fonts[name]!);
  else {
    bytes = Buffer.from(name, 'base64');
    const magic = bytes.subarray(0, 4).toString('latin1');
    if (!(magic === '\x00\x01\x00\x00' || magic === 'true' || magic === 'OTTO'))
      throw badRequest(
        `The font ${JSON.stringify(name.slice(0, 40))} is neither a standard font, a configured font nor a TrueType font.`,
        'font',
      );
  }
  doc.registerFontkit(fontkit);
  try {
    // A fixed name keeps the embedding deterministic (pdf-lib would add a random subset tag).
    return await doc.embedFont(bytes, { subset: true, customName: 'TesseraSignatureFont' });
  } catch {
    throw badRequest('The font cannot be read.', 'font');
  }
}

interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}

function drawText(
  font: PDFFont,
  text: string,
  area: Area,
  padding: number,
  visual: WireVisualParameters,
): PDFOperator[] {
  const tp = visual.textParameters ?? {};
  const inner = {
    x: area.x + padding,
    y: area.y + padding,
    width: Math.max(1, area.width - 2 * padding),
    height: Math.max(1, area.height - 2 * padding),
  };
  const wrapping = tp.textWrapping ?? 'FILL_BOX';
  let size = tp.size ?? DEFAULT_FONT_SIZE;
  let lines = text.split(/\r?\n/);
  const width = widthsOf(font);
  const widest = (candidate: string[], at: number) => Math.max(...candidate.map((line) => width(line, at)));
  if (wrapping !== 'FONT_BASED') {
    // FILL_BOX: the largest size at which the lines fit the box; with LINEBREAK words also wrap.
    for (size = 72; size > 2; size -= 0.5) {
      lines = wrapping === 'FILL_BOX_AND_LINEBREAK' ? wrap(width, text, size, inner.width) : text.split(/\r?\n/);
      if (widest(lines, size) <= inner.width && lines.length * size * LINE_SPACING <= inner.height) break;
    }
  }
  const lineHeight = size * LINE_SPACING;
  const blockHeight = lines.length * lineHeight;
  const vertical = tp.signerTextVerticalAlignment ?? 'MIDDLE';
  const top =
    vertical === 'TOP'
      ? inner.y + inner.height
      : vertical === 'BOTTOM'
        ? inner.y + blockHeight
        : inner.y + (inner.height + blockHeight) / 2;
  const ops: PDFOperator[] = [];
  const textBackground = color(tp.backgroundColor, undefined);
  if (textBackground) ops.push(...rect(area.x, area.y, area.width, area.height, textBackground));
  const fill = color(tp.textColor, 'BLACK') ?? rgb(0, 0, 0);
  lines.forEach((line, index) => {
    const lineWidth = width(line, size);
    const horizontal = tp.signerTextHorizontalAlignment ?? 'LEFT';
    const x =
      horizontal === 'CENTER'
        ? inner.x + (inner.width - lineWidth) / 2
        : horizontal === 'RIGHT'
          ? inner.x + inner.width - lineWidth
          : inner.x;
    const baseline = top - (index + 1) * lineHeight + (lineHeight - size) / 2 + size * 0.2;
    ops.push(
      ...drawLinesOfText([encode(font, line)], {
        color: fill,
        font: 'F1',
        size,
        lineHeight,
        x,
        y: baseline,
        rotate: degrees(0),
        xSkew: degrees(0),
        ySkew: degrees(0),
      }),
    );
  });
  return [pushGraphicsState(), ...ops, popGraphicsState()];
}

function encode(font: PDFFont, line: string) {
  try {
    return font.encodeText(line);
  } catch {
    throw badRequest(
      'The signer text has characters the chosen font cannot show; choose an embedded TrueType font.',
      'text',
    );
  }
}

/**
 * Text widths, each text measured once: pdf-lib's width at a size is the width at 1000 units times size / 1000
 * (standard and embedded fonts alike), so the fitting loop, which tries up to 140 sizes, gets the same numbers
 * without laying the text out at every size.
 */
function widthsOf(font: PDFFont): (line: string, size: number) => number {
  const unscaled = new Map<string, number>();
  return (line, size) => {
    let at1000 = unscaled.get(line);
    if (at1000 === undefined) {
      at1000 = safeWidth(font, line, 1000);
      unscaled.set(line, at1000);
    }
    return at1000 * (size / 1000);
  };
}

function safeWidth(font: PDFFont, line: string, size: number): number {
  try {
    return font.widthOfTextAtSize(line, size);
  } catch {
    throw badRequest(
      'The signer text has characters the chosen font cannot show; choose an embedded TrueType font.',
      'text',
    );
  }
}

function wrap(widthOf: (line: string, size: number) => number, text: string, size: number, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    for (const word of paragraph.split(/\s+/)) {
      const candidate = line ? `${line} ${word}` : word;
      if (line && widthOf(candidate, size) > width) {
        out.push(line);
        line = word;
      } else line = candidate;
    }
    out.push(line);
  }
  return out;
}

function placeImage(image: PDFImage, area: Area, visual: WireVisualParameters): PDFOperator[] {
  const scaling = visual.imageScaling ?? 'ZOOM_AND_CENTER';
  let width = area.width;
  let height = area.height;
  if (scaling === 'CENTER') {
    // Natural size at the image's dpi (default 96) and the zoom in percent.
    const factor = (72 / (visual.dpi ?? 96)) * ((visual.zoom ?? 100) / 100);
    width = Math.min(area.width, image.width * factor);
    height = Math.min(area.height, image.height * factor);
  } else if (scaling === 'ZOOM_AND_CENTER') {
    const ratio = Math.min(area.width / image.width, area.height / image.height);
    width = image.width * ratio;
    height = image.height * ratio;
  }
  const h = visual.alignmentHorizontal ?? 'NONE';
  const v = visual.alignmentVertical ?? 'NONE';
  const x = h === 'LEFT' ? area.x : h === 'RIGHT' ? area.x + area.width - width : area.x + (area.width - width) / 2;
  const y = v === 'BOTTOM' ? area.y : v === 'TOP' ? area.y + area.height - height : area.y + (area.height - height) / 2;
  return [
    pushGraphicsState(),
    ...drawImage('Im1', { x, y, width, height, rotate: degrees(0), xSkew: degrees(0), ySkew: degrees(0) }),
    popGraphicsState(),
  ];
}
