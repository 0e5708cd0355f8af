import { crc32, deflateSync } from 'node:zlib';
import QRCode from 'qrcode';

/**
 * The QR code of a deep link as a PNG data URI (000 §4.1 qrCodeDataUri). The qrcode package makes the symbol
 * (ISO/IEC 18004, error correction M); the PNG (RFC 2083) is written here as 1-bit greyscale with no row filter:
 * about a fifth of the time of the package's RGBA PNG with adaptive filtering, and a smaller image.
 */
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

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
 * (two thirds of the symbol's time); here the symbol is made once with mask 0, and each mask's matrix is derived
 * from it (data modules re-masked, format information rewritten) and scored with the same rules in flat loops.
 * qr-png.test.ts checks that the symbols are identical to qrcode's own choice.
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

/** Writes the format information of `mask` where qrcode's setupFormatInfo puts it. */
function writeFormat(m: Uint8Array, size: number, mask: number): void {
  const bits = formatBits(mask);
  for (let i = 0; i < 15; i++) {
    const mod = (bits >> i) & 1;
    const row = i < 6 ? i : i < 8 ? i + 1 : size - 15 + i;
    m[row * size + 8] = mod;
    const col = i < 8 ? size - i - 1 : i < 9 ? 15 - i : 15 - i - 1;
    m[8 * size + col] = mod;
  }
  m[(size - 8) * size + 8] = 1;
}

/** qrcode's penalty (N1 runs, N2 blocks, N3 finder-like patterns, N4 balance), on a flat row-major matrix. */
function penalty(m: Uint8Array, size: number): number {
  let points = 0;
  for (let row = 0; row < size; row++) {
    let sameCol = 0;
    let sameRow = 0;
    let lastCol = -1;
    let lastRow = -1;
    let bitsCol = 0;
    let bitsRow = 0;
    for (let col = 0; col < size; col++) {
      const a = m[row * size + col]!;
      if (a === lastCol) sameCol++;
      else {
        if (sameCol >= 5) points += 3 + (sameCol - 5);
        lastCol = a;
        sameCol = 1;
      }
      const b = m[col * size + row]!;
      if (b === lastRow) sameRow++;
      else {
        if (sameRow >= 5) points += 3 + (sameRow - 5);
        lastRow = b;
        sameRow = 1;
      }
      bitsCol = ((bitsCol << 1) & 0x7ff) | a;
      if (col >= 10 && (bitsCol === 0x5d0 || bitsCol === 0x05d)) points += 40;
      bitsRow = ((bitsRow << 1) & 0x7ff) | b;
      if (col >= 10 && (bitsRow === 0x5d0 || bitsRow === 0x05d)) points += 40;
    }
    if (sameCol >= 5) points += 3 + (sameCol - 5);
    if (sameRow >= 5) points += 3 + (sameRow - 5);
  }
  let blocks = 0;
  for (let row = 0; row < size - 1; row++) {
    for (let col = 0; col < size - 1; col++) {
      const at = row * size + col;
      const sum = m[at]! + m[at + 1]! + m[at + size]! + m[at + size + 1]!;
      if (sum === 4 || sum === 0) blocks++;
    }
  }
  points += blocks * 3;
  let dark = 0;
  for (let i = 0; i < m.length; i++) dark += m[i]!;
  points += Math.abs(Math.ceil((dark * 100) / m.length / 5) - 10) * 10;
  return points;
}

/**
 * Per symbol size (one version, so one layout of function patterns): for each mask, which modules it flips (the
 * data modules where its condition holds). Deep links of one deployment have one or two sizes.
 */
const flipsBySize = new Map<number, Uint8Array[]>();
function maskFlips(size: number, reserved: Uint8Array): Uint8Array[] {
  let flips = flipsBySize.get(size);
  if (!flips) {
    flips = MASKS.map((mask) => {
      const flip = new Uint8Array(size * size);
      for (let row = 0; row < size; row++)
        for (let col = 0; col < size; col++)
          flip[row * size + col] = !reserved[row * size + col] && mask(row, col) ? 1 : 0;
      return flip;
    });
    if (flipsBySize.size < 8) flipsBySize.set(size, flips);
  }
  return flips;
}

/** The symbol's modules (row-major, 1 = dark) with the mask qrcode would choose. */
export function bestMasked(data: Buffer): { modules: Uint8Array; size: number } {
  const { modules } = QRCode.create([{ data, mode: 'byte' }], { errorCorrectionLevel: 'M', maskPattern: 0 });
  const size = modules.size;
  const base = modules.data as Uint8Array;
  const flips = maskFlips(size, (modules as unknown as { reservedBit: Uint8Array }).reservedBit);
  // The unmasked data modules: mask 0 undone.
  const plain = new Uint8Array(base.length);
  const flip0 = flips[0]!;
  for (let i = 0; i < base.length; i++) plain[i] = base[i]! ^ flip0[i]!;
  let best = base;
  let lowest = Infinity;
  for (let mask = 0; mask < flips.length; mask++) {
    const flip = flips[mask]!;
    const m = new Uint8Array(plain.length);
    for (let i = 0; i < m.length; i++) m[i] = plain[i]! ^ flip[i]!;
    writeFormat(m, size, mask);
    const score = penalty(m, size);
    if (score < lowest) {
      lowest = score;
      best = m;
    }
  }
  return { modules: best, size };
}

/** The PNG of the QR code of `text` (error correction M, one byte segment, the mask of lowest penalty). */
export function qrPng(text: string, options: { scale?: number; margin?: number } = {}): Buffer {
  const scale = options.scale ?? 6;
  const margin = options.margin ?? 4;
  // One byte-mode segment: the segmentation search (a shortest path over the text) costs a third of the symbol and
  // picks a single byte segment for nearly every deep link; the version (size) stays the same for them.
  const { modules, size } = bestMasked(Buffer.from(text, 'utf8'));
  const width = (size + 2 * margin) * scale;
  const rowBytes = Math.ceil(width / 8);
  const line = rowBytes + 1;
  const raw = Buffer.alloc(line * width, 0xff);
  const row = Buffer.alloc(rowBytes);
  for (let my = -margin; my < size + margin; my++) {
    // One pixel row per module row, copied `scale` times; each line starts with filter type 0.
    row.fill(0xff);
    if (my >= 0 && my < size) {
      for (let mx = 0; mx < size; mx++) {
        if (!modules[my * size + mx]) continue;
        for (let x = (mx + margin) * scale, end = x + scale; x < end; x++)
          row[x >> 3] = row[x >> 3]! & ~(0x80 >> (x & 7));
      }
    }
    for (let k = 0; k < scale; k++) {
      const at = ((my + margin) * scale + k) * line;
      raw[at] = 0;
      row.copy(raw, at + 1);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(width, 4);
  header.writeUInt8(1, 8); // bit depth 1
  header.writeUInt8(0, 9); // greyscale
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const qrDataUri = (text: string) => `data:image/png;base64,${qrPng(text).toString('base64')}`;
