/** Types of @digitalbazaar/bitstring 3.1 (the package ships none): the W3C Bitstring Status List bit order. */
declare module '@digitalbazaar/bitstring' {
  export class Bitstring {
    constructor(options: { length?: number; buffer?: Uint8Array; leftToRightIndexing?: boolean });
    bits: Uint8Array;
    length: number;
    set(position: number, on: boolean): void;
    get(position: number): boolean;
    encodeBits(): Promise<string>;
    static decodeBits(options: { encoded: string }): Promise<Uint8Array>;
  }
}
