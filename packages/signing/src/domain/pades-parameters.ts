import { badRequest } from './errors.js';

/**
 * PAdES form parameters (002 §2.1 "Signature form parameters", visualSignatureParameters, textParameters,
 * fieldParameters) as the wire carries them. Enumerations list the values the spec shows and the ones a user of
 * such a service expects beside them (decisions in the package README).
 */
export const PADES_MODES = ['APPROVAL', 'CERTIFICATION'] as const;
export const CERTIFICATION_PERMISSIONS = [
  'NO_CHANGE_PERMITTED',
  'MINIMAL_CHANGES_PERMITTED',
  'CHANGES_PERMITTED',
] as const;
export const COLORS = [
  'WHITE',
  'BLACK',
  'GRAY',
  'LIGHT_GRAY',
  'DARK_GRAY',
  'RED',
  'GREEN',
  'BLUE',
  'YELLOW',
  'TRANSPARENT',
] as const;
export const ROTATIONS = ['AUTOMATIC', 'NONE', 'ROTATE_90', 'ROTATE_180', 'ROTATE_270'] as const;
export const HORIZONTAL_ALIGNMENTS = ['NONE', 'LEFT', 'CENTER', 'RIGHT'] as const;
export const VERTICAL_ALIGNMENTS = ['NONE', 'TOP', 'MIDDLE', 'BOTTOM'] as const;
export const IMAGE_SCALINGS = ['STRETCH', 'ZOOM_AND_CENTER', 'CENTER'] as const;
export const TEXT_POSITIONS = ['TOP', 'BOTTOM', 'LEFT', 'RIGHT'] as const;
export const TEXT_WRAPPINGS = ['FONT_BASED', 'FILL_BOX', 'FILL_BOX_AND_LINEBREAK'] as const;

export type Color = (typeof COLORS)[number];

export interface WireOrigData {
  name: string;
  mimeType: string;
  content: string;
  password?: string | undefined;
}

export interface WireFieldParameters {
  fieldId?: string;
  page?: number;
  originX?: string;
  originY?: string;
  width?: string;
  height?: string;
}

export interface WireTextParameters {
  signerTextPosition?: (typeof TEXT_POSITIONS)[number];
  signerTextVerticalAlignment?: 'TOP' | 'MIDDLE' | 'BOTTOM';
  signerTextHorizontalAlignment?: 'LEFT' | 'CENTER' | 'RIGHT';
  text?: string;
  font?: string;
  size?: number;
  textWrapping?: (typeof TEXT_WRAPPINGS)[number];
  padding?: string;
  textColor?: Color;
  backgroundColor?: Color;
}

export interface WireVisualParameters {
  image?: WireOrigData;
  zoom?: number;
  backgroundColor?: Color;
  dpi?: number;
  rotation?: (typeof ROTATIONS)[number];
  alignmentHorizontal?: (typeof HORIZONTAL_ALIGNMENTS)[number];
  alignmentVertical?: (typeof VERTICAL_ALIGNMENTS)[number];
  imageScaling?: (typeof IMAGE_SCALINGS)[number];
  textParameters?: WireTextParameters;
  fieldParameters?: WireFieldParameters;
}

export interface WirePadesParameters {
  mode?: (typeof PADES_MODES)[number];
  reason?: string;
  contactInfo?: string;
  location?: string;
  signerName?: string;
  passwordProtection?: string;
  signinTimeZone?: string;
  certificationPermission?: (typeof CERTIFICATION_PERMISSIONS)[number];
  visualSignatureParameters?: WireVisualParameters;
}

export interface WireFormParameters {
  padesSignatureFormParameters?: WirePadesParameters;
}

/** "100f", "100.5", "100" → 100.5; the spec gives these as float strings with an optional f suffix. */
export function parseFloatString(value: string | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*[fF]?\s*$/.exec(value);
  if (!match) throw badRequest(`${field} must be a number such as "100f", not ${JSON.stringify(value)}.`, field);
  return Number(match[1]);
}

/** DocMDP permission (ISO 32000-1 §12.8.2.2 table 254): P=1 no changes, 2 form filling and signing, 3 annotations too. */
export function docMdpPermission(value: WirePadesParameters['certificationPermission']): 1 | 2 | 3 {
  switch (value) {
    case 'MINIMAL_CHANGES_PERMITTED':
      return 2;
    case 'CHANGES_PERMITTED':
      return 3;
    default:
      return 1;
  }
}

/**
 * `signinTimeZone` (e.g. "GMT+3", "GMT-05:30", "UTC", "+02:00") as minutes east of UTC: the signing time in the
 * signature dictionary's /M is written in that offset (ISO 32000-1 §7.9.4).
 */
export function parseTimeZone(value: string | undefined): number {
  if (value === undefined || value === '' || /^(GMT|UTC|Z)$/i.test(value)) return 0;
  const match = /^(?:GMT|UTC)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(value.trim());
  if (!match)
    throw badRequest(
      `signinTimeZone must be an offset such as "GMT+3", not ${JSON.stringify(value)}.`,
      'signinTimeZone',
    );
  const hours = Number(match[2]);
  const minutes = Number(match[3] ?? 0);
  if (hours > 14 || minutes > 59) throw badRequest('signinTimeZone is out of range.', 'signinTimeZone');
  return (match[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** A PDF date string `D:YYYYMMDDHHmmSS+HH'mm'` (ISO 32000-1 §7.9.4) of `date` in the offset given in minutes. */
export function pdfDate(date: Date, offsetMinutes: number): string {
  const local = new Date(date.getTime() + offsetMinutes * 60_000);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${p(local.getUTCFullYear(), 4)}${p(local.getUTCMonth() + 1)}${p(local.getUTCDate())}${p(local.getUTCHours())}${p(local.getUTCMinutes())}${p(local.getUTCSeconds())}`;
  if (offsetMinutes === 0) return `D:${stamp}Z`;
  const abs = Math.abs(offsetMinutes);
  return `D:${stamp}${offsetMinutes < 0 ? '-' : '+'}${p(Math.floor(abs / 60))}'${p(abs % 60)}'`;
}
