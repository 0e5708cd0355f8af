import { describe, expect, it } from 'vitest';
import { StatusList } from '@sd-jwt/jwt-status-list';
import { Bitstring } from '@digitalbazaar/bitstring';
import { packedLength, readStatus, STATUS_BITS, toMostSignificantFirst, writeStatus } from './status-bits.js';

describe('packed statuses', () => {
  it.each(STATUS_BITS)('lays out %i-bit statuses as the Token Status List reader expects', (bits) => {
    const length = 37;
    const bytes = new Uint8Array(packedLength(length, bits));
    const values = Array.from({ length }, (_, i) => (i * 7 + 3) % (1 << bits));
    values.forEach((v, i) => writeStatus(bytes, i, bits, v));
    const reader = StatusList.decompressStatusList(new StatusList(values, bits).compressStatusList(), bits);
    expect(Buffer.from(reader.encodeStatusList())).toEqual(Buffer.from(bytes));
    values.forEach((v, i) => expect(readStatus(bytes, i, bits)).toBe(v));
  });

  it('overwrites one status without touching its neighbours in the byte', () => {
    const bytes = new Uint8Array(2).fill(0xff);
    writeStatus(bytes, 5, 2, 0);
    expect([readStatus(bytes, 4, 2), readStatus(bytes, 5, 2), readStatus(bytes, 6, 2)]).toEqual([3, 0, 3]);
    expect(bytes[1]).toBe(0b11110011);
  });

  it('turns a 1-bit list into the W3C order (index 0 = most significant bit)', () => {
    const bytes = new Uint8Array(4);
    for (const i of [0, 9, 31]) writeStatus(bytes, i, 1, 1);
    const w3c = new Bitstring({ buffer: toMostSignificantFirst(bytes) });
    expect([0, 1, 8, 9, 30, 31].map((i) => w3c.get(i))).toEqual([true, false, false, true, false, true]);
  });
});
