import sanitizeHtml from 'sanitize-html';
import { invalidRequest } from '@tessera/platform';
import type { AssetType } from './enums.js';

/**
 * What an uploaded asset may be (issue 17 item 4): the declared Content-Type must be one its asset type allows and
 * the bytes must be that type (sniffed by signature, never trusted from the header alone); SVG is sanitized with
 * sanitize-html to an allow-list of SVG elements and attributes (no script, no event handlers, no style, no
 * reference outside the document); a PDF template must be a PDF and carry no JavaScript or launch actions.
 */
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml'];
export const ALLOWED_TYPES: Record<AssetType, readonly string[]> = {
  LOGO: IMAGE_TYPES,
  BACKGROUND_IMAGE: IMAGE_TYPES,
  SVG_TEMPLATE: ['image/svg+xml'],
  PDF_TEMPLATE: ['application/pdf'],
};

const startsWith = (bytes: Buffer, signature: number[], at = 0) => signature.every((b, i) => bytes[at + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** The media type the bytes are, by signature (WHATWG MIME Sniffing §6.1 for images; ISO 32000 §7.5.2 for PDF). */
export function sniff(bytes: Buffer): string | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBPVP'), 8)) return 'image/webp';
  if (startsWith(bytes, ascii('%PDF-'))) return 'application/pdf';
  const head = bytes
    .subarray(0, 4096)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  if (/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE[^[>]*(\[[\s\S]*?\])?\s*>\s*)*<svg[\s>]/i.test(head))
    return 'image/svg+xml';
  return null;
}

const SVG_ELEMENTS = [
  'svg',
  'g',
  'defs',
  'symbol',
  'use',
  'title',
  'desc',
  'path',
  'rect',
  'circle',
  'ellipse',
  'line',
  'polyline',
  'polygon',
  'text',
  'tspan',
  'textPath',
  'linearGradient',
  'radialGradient',
  'stop',
  'clipPath',
  'mask',
  'pattern',
];
const SVG_ATTRIBUTES = [
  'xmlns',
  'xmlns:xlink',
  'version',
  'id',
  'class',
  'viewBox',
  'preserveAspectRatio',
  'width',
  'height',
  'x',
  'y',
  'x1',
  'y1',
  'x2',
  'y2',
  'cx',
  'cy',
  'r',
  'rx',
  'ry',
  'fx',
  'fy',
  'dx',
  'dy',
  'd',
  'points',
  'transform',
  'fill',
  'fill-opacity',
  'fill-rule',
  'stroke',
  'stroke-width',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-dasharray',
  'stroke-dashoffset',
  'stroke-miterlimit',
  'stroke-opacity',
  'opacity',
  'clip-path',
  'clip-rule',
  'mask',
  'font-family',
  'font-size',
  'font-style',
  'font-weight',
  'letter-spacing',
  'text-anchor',
  'dominant-baseline',
  'alignment-baseline',
  'offset',
  'stop-color',
  'stop-opacity',
  'gradientUnits',
  'gradientTransform',
  'spreadMethod',
  'patternUnits',
  'patternContentUnits',
  'patternTransform',
  'clipPathUnits',
  'maskUnits',
  'startOffset',
  'href',
  'xlink:href',
  'visibility',
  'display',
];
/** A reference inside the document only: `#id` and `url(#id)`. */
const externalReference = (name: string, value: string) =>
  ((name === 'href' || name === 'xlink:href') && !value.trim().startsWith('#')) || /url\(\s*['"]?(?!#)/i.test(value);

/** The XML prolog's document type, internal subset included: entities are never expanded (no XXE). */
const DOCTYPE = /<!DOCTYPE[^[>]*(\[[\s\S]*?\])?\s*>/gi;

export function sanitizeSvg(svg: string): string {
  return sanitizeHtml(svg.replace(DOCTYPE, ''), {
    allowedTags: SVG_ELEMENTS,
    allowedAttributes: { '*': SVG_ATTRIBUTES },
    allowedSchemes: [],
    allowProtocolRelative: false,
    allowVulnerableTags: false,
    parser: { xmlMode: true, lowerCaseTags: false, lowerCaseAttributeNames: false },
    // Nothing is forced self-closing: an element keeps its children (sanitize-html would close it at once).
    selfClosing: [],
    transformTags: {
      '*': (tagName, attribs) => ({
        tagName,
        attribs: Object.fromEntries(Object.entries(attribs).filter(([k, v]) => !externalReference(k, v))),
      }),
    },
  }).trim();
}

const PDF_ACTIVE_CONTENT = /\/(JavaScript|JS|Launch|EmbeddedFile|RichMedia)\b/;

/**
 * Checks the bytes against the declared type and the asset type; answers what is stored (SVG sanitized) and its
 * media type (without parameters).
 */
export function checkAsset(
  assetType: AssetType,
  declared: string,
  bytes: Buffer,
): { contentType: string; bytes: Buffer } {
  const contentType = declared.split(';')[0]!.trim().toLowerCase();
  if (!ALLOWED_TYPES[assetType].includes(contentType))
    throw invalidRequest(
      `A ${assetType} is one of ${ALLOWED_TYPES[assetType].join(', ')}; ${contentType || 'no type'} was declared.`,
      'Content-Type',
    );
  if (bytes.length === 0) throw invalidRequest('The asset is empty.', 'body');
  const actual = sniff(bytes);
  if (actual !== contentType)
    throw invalidRequest(`The content is ${actual ?? 'of no known type'}, not ${contentType}.`, 'body');
  if (contentType === 'application/pdf') {
    const text = bytes.toString('latin1');
    if (!/%%EOF\s*$/.test(text.slice(-1024))) throw invalidRequest('The PDF has no end-of-file marker.', 'body');
    if (PDF_ACTIVE_CONTENT.test(text)) throw invalidRequest('PDF templates may not carry active content.', 'body');
  }
  if (contentType === 'image/svg+xml') {
    const clean = sanitizeSvg(bytes.toString('utf8'));
    if (!/^<svg[\s>]/.test(clean.trim())) throw invalidRequest('The SVG has no svg root element.', 'body');
    return { contentType, bytes: Buffer.from(clean, 'utf8') };
  }
  return { contentType, bytes };
}
