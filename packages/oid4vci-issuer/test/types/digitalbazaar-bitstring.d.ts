// Type declarations for @digitalbazaar/bitstring 3.1 (the package ships none).
declare module '@digitalbazaar/bitstring' {
  export class Bitstring {
    constructor(options: { length?: number; buffer?: Uint8Array; leftToRightIndexing?: boolean });
    bits: Uint8Array;
    length: number;
    set(position: number, on: boolean): void;
    get(position: number): boolean;
    encodeBits(): Promise<string>;
    compressBits(): Promise<Uint8Array>;
    static decodeBits(options: { encoded: string }): Promise<Uint8Array>;
    static uncompressBits(options: { compressed: Uint8Array }): Promise<Uint8Array>;
  }
}
