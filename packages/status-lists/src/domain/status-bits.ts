/**
 * The packed statuses of a list, as the Token Status List lays them out (draft-ietf-oauth-status-list §4.1): the
 * status of index i takes bits i*bits .. i*bits+bits-1 of the byte array, each byte filled from its least
 * significant bit. The W3C lists (Bitstring Status List §4.1, StatusList2021 §2.1) put index 0 at the most
 * significant bit of the first byte instead: `toMostSignificantFirst` turns a 1-bit array into that order.
 */
export const STATUS_BITS = [1, 2, 4, 8] as const;
export type StatusBits = (typeof STATUS_BITS)[number];

export const isStatusBits = (value: unknown): value is StatusBits =>
  typeof value === 'number' && (STATUS_BITS as readonly number[]).includes(value);

/** Bytes of a list of `length` entries of `bits` each (the last byte padded with zeros). */
export const packedLength = (length: number, bits: StatusBits): number => Math.ceil((length * bits) / 8);

/** Where the status of `index` lives: its byte, the shift inside the byte and the mask of its bits there. */
export interface StatusPosition {
  byte: number;
  shift: number;
  mask: number;
}

export function statusPosition(index: number, bits: StatusBits): StatusPosition {
  const bit = index * bits;
  const shift = bit & 7;
  return { byte: bit >>> 3, shift, mask: ((1 << bits) - 1) << shift };
}

/** The status stored in one byte at `position`. */
export const statusInByte = (byte: number, position: StatusPosition): number =>
  (byte & position.mask) >>> position.shift;

/** The byte with the status at `position` replaced by `value` (which must fit the bits). */
export const byteWithStatus = (byte: number, position: StatusPosition, value: number): number =>
  (byte & ~position.mask & 0xff) | ((value << position.shift) & position.mask);

export function readStatus(bytes: Uint8Array, index: number, bits: StatusBits): number {
  const position = statusPosition(index, bits);
  return statusInByte(bytes[position.byte] ?? 0, position);
}

export function writeStatus(bytes: Uint8Array, index: number, bits: StatusBits, value: number): void {
  const position = statusPosition(index, bits);
  bytes[position.byte] = byteWithStatus(bytes[position.byte] ?? 0, position, value);
}

const REVERSED = (() => {
  const table = new Uint8Array(256);
  for (let b = 0; b < 256; b++) {
    let r = 0;
    for (let i = 0; i < 8; i++) if (b & (1 << i)) r |= 0x80 >>> i;
    table[b] = r;
  }
  return table;
})();

/** A 1-bit list in W3C order (index 0 = most significant bit of byte 0), in place: returns `bytes`. */
export function toMostSignificantFirst(bytes: Uint8Array): Uint8Array {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b !== 0) bytes[i] = REVERSED[b]!;
  }
  return bytes;
}
