import { crc32, deflateSync } from 'node:zlib';
import QRCode from 'qrcode';

/**
 * The QR code of a deep link as a PNG data URI (000 §4.1 qrCodeDataUri). The qrcode package makes the symbol
 * (ISO/IEC 18004, error correction M); the PNG (RFC 2083) is written here as 1-bit greyscale, each line that repeats
 * the one above filtered Up: a fraction of the time of the package's RGBA PNG with adaptive filtering, and a smaller
 * image.
 */
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * zlib's level 3: the default level 6 took about three times as long on this image (its lazy matching searches the
 * module rows at length) for an image about 7% smaller (about 1.0 kB against 1.1 kB).
 */
const DEFLATE_LEVEL = 3;

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * ISO/IEC 18004 §7.8.3: the mask with the lowest penalty, the one qrcode would choose, found without its search.
 * qrcode's search applies each of the eight masks to its module matrix and scores it through per-module calls
 * (two thirds of the symbol's time). Here the symbol is made once with mask 0, and the eight masked matrices are
 * scored together, bit-sliced: one byte per module whose bit k is the module under mask k (format information
 * included), so that each rule is a few bitwise operations per module for all eight masks at once, and its points
 * are summed per mask from a histogram of those bytes. qr-png.test.ts checks that the symbols are identical to
 * qrcode's own choice.
 */
const MASKS: ((i: number, j: number) => boolean)[] = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (_i, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
  (i, j) => (((i * j) % 3) + ((i + j) % 2)) % 2 === 0,
];

/** The 15 format bits (§7.9.1): error correction level M (00) and the mask, BCH(15,5), XOR 101010000010010. */
function formatBits(mask: number): number {
  const G15 = 0b10100110111;
  const data = (0b00 << 3) | mask;
  let d = data << 10;
  const digits = (n: number) => (n === 0 ? 0 : 32 - Math.clz32(n));
  while (digits(d) - 11 >= 0) d ^= G15 << (digits(d) - 11);
  return ((data << 10) | d) ^ 0b101010000010010;
}

/** Writes, through `set`, the format information of `mask` where qrcode's setupFormatInfo puts it. */
function forFormat(size: number, mask: number, set: (at: number, mod: number) => void): void {
  const bits = formatBits(mask);
  for (let i = 0; i < 15; i++) {
    const mod = (bits >> i) & 1;
    const row = i < 6 ? i : i < 8 ? i + 1 : size - 15 + i;
    set(row * size + 8, mod);
    const col = i < 8 ? size - i - 1 : i < 9 ? 15 - i : 15 - i - 1;
    set(8 * size + col, mod);
  }
  set((size - 8) * size + 8, 1);
}

/**
 * Per symbol size (one version, so one layout of function patterns): for each module, which masks flip it (bit k:
 * mask k's condition holds on a data module), and the format modules with their bits under each mask. Deep links
 * of one deployment have one or two sizes.
 */
interface MaskLayout {
  flips: Uint8Array;
  formatAt: number[];
  formatBytes: number[];
}
const layoutBySize = new Map<number, MaskLayout>();
function maskLayout(size: number, reserved: Uint8Array): MaskLayout {
  let layout = layoutBySize.get(size);
  if (!layout) {
    const flips = new Uint8Array(size * size);
    for (let row = 0; row < size; row++)
      for (let col = 0; col < size; col++) {
        if (reserved[row * size + col]) continue;
        let byte = 0;
        for (let mask = 0; mask < 8; mask++) if (MASKS[mask]!(row, col)) byte |= 1 << mask;
        flips[row * size + col] = byte;
      }
    const format = new Map<number, number>();
    for (let mask = 0; mask < 8; mask++)
      forFormat(size, mask, (at, mod) => format.set(at, (format.get(at) ?? 0) | (mod << mask)));
    layout = { flips, formatAt: [...format.keys()], formatBytes: [...format.values()] };
    if (layoutBySize.size < 8) layoutBySize.set(size, layout);
  }
  return layout;
}

/**
 * Adds the N1 (runs of five or more: 3 + the run's length beyond five) and N3 (1:1:3:1:1 with four light modules
 * on a side: 40) points of one line (`size` modules of `v` from `start`, `step` apart: a row or a column) to
 * `points`, for the eight masks at once, in one pass. A run of length L >= 5 scores L - 2: one point for each
 * module that ends five equal modules (L - 4) and two more where such a stretch starts. N3 looks for 1011101
 * followed by 0000, or 0000 followed by 1011101: `core` is 1011101 ending at the module, `light` 0000 ending there,
 * kept for the last four (core) and eight (light) modules, a byte each, packed in numbers.
 */
function scoreLine(v: Uint8Array, start: number, step: number, size: number, points: Uint32Array): void {
  let e1 = 0; // equal to the previous module, per mask
  let e2 = 0;
  let e3 = 0;
  let five = 0; // this module ends five equal modules, per mask
  // The last six modules before this one (d1 the previous one), dark per mask.
  let d1 = 0;
  let d2 = 0;
  let d3 = 0;
  let d4 = 0;
  let d5 = 0;
  let d6 = 0;
  let coreRing = 0; // core ending at i-1 .. i-4 in bytes 0..3
  let lightRing = 0; // light ending at i-1 .. i-4
  let lightOld = 0; // light ending at i-5 .. i-8
  for (let i = 0, at = start; i < size; i++, at += step) {
    const d = v[at]!;
    const light = ~(d | d1 | d2 | d3) & 0xff;
    const core = d & ~d1 & d2 & d3 & d4 & ~d5 & d6 & 0xff;
    if (i >= 1) {
      const e = ~(d ^ d1) & 0xff;
      const now = i >= 4 ? e & e1 & e2 & e3 : 0;
      points[now]! += 1;
      points[now & ~five]! += 2;
      five = now;
      e3 = e2;
      e2 = e1;
      e1 = e;
    }
    if (i >= 10) {
      // 1011101 ending at i-4, then 0000 ending at i; 0000 ending at i-7, then 1011101 ending at i.
      points[(coreRing >>> 24) & light]! += 40;
      points[(lightOld >>> 16) & 0xff & core]! += 40;
    }
    coreRing = ((coreRing << 8) | (i >= 6 ? core : 0)) >>> 0;
    lightOld = ((lightOld << 8) | (lightRing >>> 24)) >>> 0;
    lightRing = ((lightRing << 8) | (i >= 3 ? light : 0)) >>> 0;
    d6 = d5;
    d5 = d4;
    d4 = d3;
    d3 = d2;
    d2 = d1;
    d1 = d;
  }
}

/** qrcode's penalty (N1 runs, N2 blocks, N3 finder-like patterns, N4 balance) of each mask, from the sliced matrix. */
function penalties(v: Uint8Array, size: number): number[] {
  // points[b]: points scored where exactly the masks of the bits of b score; dark[b]: modules dark under those masks.
  // Points are added without a test: what no mask scores lands in points[0], which is never read.
  const points = new Uint32Array(256);
  const dark = new Uint32Array(256);
  for (let row = 0; row < size; row++) scoreLine(v, row * size, 1, size, points);
  for (let col = 0; col < size; col++) scoreLine(v, col, size, size, points);
  for (let row = 0; row < size - 1; row++) {
    let at = row * size;
    for (let col = 0; col < size - 1; col++, at++) {
      const a = v[at]!;
      const same = ~((a ^ v[at + 1]!) | (a ^ v[at + size]!) | (a ^ v[at + size + 1]!)) & 0xff;
      points[same]! += 3;
    }
  }
  for (let i = 0; i < v.length; i++) dark[v[i]!]!++;
  const result: number[] = [];
  for (let mask = 0; mask < 8; mask++) {
    let score = 0;
    let darkCount = 0;
    for (let b = 1; b < 256; b++) {
      if (!((b >> mask) & 1)) continue;
      score += points[b]!;
      darkCount += dark[b]!;
    }
    result.push(score + Math.abs(Math.ceil((darkCount * 100) / v.length / 5) - 10) * 10);
  }
  return result;
}

/** The symbol's modules (row-major, 1 = dark) with the mask qrcode would choose. */
export function bestMasked(data: Buffer): { modules: Uint8Array; size: number } {
  const { modules } = QRCode.create([{ data, mode: 'byte' }], { errorCorrectionLevel: 'M', maskPattern: 0 });
  const size = modules.size;
  const base = modules.data as Uint8Array;
  const { flips, formatAt, formatBytes } = maskLayout(
    size,
    (modules as unknown as { reservedBit: Uint8Array }).reservedBit,
  );
  // Bit k of v[i]: module i under mask k (mask 0 undone, mask k applied), then the format information of each mask.
  const v = new Uint8Array(base.length);
  for (let i = 0; i < base.length; i++) {
    const flip = flips[i]!;
    v[i] = ((base[i]! ^ (flip & 1)) * 0xff) ^ flip;
  }
  for (let k = 0; k < formatAt.length; k++) v[formatAt[k]!] = formatBytes[k]!;
  const scores = penalties(v, size);
  let best = 0;
  for (let mask = 1; mask < 8; mask++) if (scores[mask]! < scores[best]!) best = mask;
  const m = new Uint8Array(v.length);
  for (let i = 0; i < v.length; i++) m[i] = (v[i]! >> best) & 1;
  return { modules: m, size };
}

/**
 * The image's scanlines, 1 bit per pixel (0 = black), each after its filter-type byte. The first line of each
 * module row (and of the margins) is written out with filter 0 (none): white, then each dark module's pixels
 * cleared. The `scale` - 1 lines below it repeat it, so they take filter 2 (Up, RFC 2083 §6.3: each byte as the
 * difference from the byte above) and are all zeros, which deflate compresses at almost no cost: about half the
 * compression time of the same image unfiltered, and a smaller image.
 */
function pixelLines(modules: Uint8Array, size: number, scale: number, margin: number): Buffer {
  const width = (size + 2 * margin) * scale;
  const line = Math.ceil(width / 8) + 1;
  const raw = Buffer.alloc(line * width);
  // Per module column, the bytes its pixels fall in and the bits they take there (first pixel = high bit).
  const spanByte: number[] = [];
  const spanBits: number[] = [];
  const spanStart = new Int32Array(size + 1);
  for (let mx = 0; mx < size; mx++) {
    spanStart[mx] = spanByte.length;
    const from = (mx + margin) * scale;
    const to = from + scale;
    for (let byte = from >> 3; byte <= (to - 1) >> 3; byte++) {
      const first = Math.max(from, byte * 8) - byte * 8;
      const last = Math.min(to, byte * 8 + 8) - 1 - byte * 8;
      spanByte.push(1 + byte);
      spanBits.push((0xff >> first) & (0xff << (7 - last)) & 0xff);
    }
  }
  spanStart[size] = spanByte.length;
  for (let row = 0; row < size + 2 * margin; row++) {
    const start = row * scale * line;
    raw.fill(0xff, start + 1, start + line);
    const my = row - margin;
    if (my >= 0 && my < size) {
      for (let mx = 0; mx < size; mx++) {
        if (!modules[my * size + mx]) continue;
        for (let s = spanStart[mx]!; s < spanStart[mx + 1]!; s++) raw[start + spanByte[s]!] &= ~spanBits[s]!;
      }
    }
    for (let k = 1; k < scale; k++) raw[start + k * line] = 2;
  }
  return raw;
}

/** The PNG of the QR code of `text` (error correction M, one byte segment, the mask of lowest penalty). */
export function qrPng(text: string, options: { scale?: number; margin?: number } = {}): Buffer {
  const scale = options.scale ?? 6;
  const margin = options.margin ?? 4;
  // One byte-mode segment: the segmentation search (a shortest path over the text) costs a third of the symbol and
  // picks a single byte segment for nearly every deep link; the version (size) stays the same for them.
  const { modules, size } = bestMasked(Buffer.from(text, 'utf8'));
  const raw = pixelLines(modules, size, scale, margin);
  const width = (size + 2 * margin) * scale;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(width, 4);
  header.writeUInt8(1, 8); // bit depth 1
  header.writeUInt8(0, 9); // greyscale
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: DEFLATE_LEVEL })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const qrDataUri = (text: string) => `data:image/png;base64,${qrPng(text).toString('base64')}`;
