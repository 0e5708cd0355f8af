import { createCipheriv } from 'node:crypto';

/**
 * A keyed permutation of 0 .. size-1 (issue 16: "random, not sequential; unique across replicas; never reused").
 * The n-th allocation of a list gets index `forward(n)`: the counter is moved by one atomic UPDATE, so two replicas
 * never get the same n, and a permutation never maps two counters to one index. Without the list's key the indexes
 * of successive allocations look random, so an index does not reveal issuance order.
 *
 * The construction is that of NIST SP 800-38G FF1 in radix 2: a Feistel network over the k-bit values (k the bits
 * of size - 1), its halves of floor(k/2) and ceil(k/2) bits swapping widths each round, with AES-256 (the list's
 * key) as round function; cycle walking (Black–Rogaway) keeps the result below `size`. The domain 2^k is less than
 * twice `size`, so a walk takes fewer than two steps on average.
 */
const ROUNDS = 10;

/**
 * Permutations already keyed, by key and size; bounded by count and by the bytes of their round tables (a list of
 * ten million entries holds 80 KiB, the largest size 640 KiB).
 */
const CACHE_LIMIT = 256;
const CACHE_BYTES_LIMIT = 32 * 1024 * 1024;
const cache = new Map<string, IndexPermutation>();
let cachedBytes = 0;

export class IndexPermutation {
  private readonly bits: number;
  /**
   * The round function tabulated: `tables[r][half]` = F(r, half) for every value of the half it reads. A half holds
   * at most 15 bits, so a round has at most 32,768 entries, all computed by one AES-ECB call over as many blocks when
   * the permutation is made. Walking the network is then a few table reads rather than ten AES calls (each a native
   * call and a Buffer) per step: the same function, its values precomputed.
   */
  private readonly tables: Uint16Array[];

  constructor(
    key: Uint8Array,
    readonly size: number,
  ) {
    if (!Number.isInteger(size) || size < 1 || size > 2 ** 30) throw new RangeError('permutation size out of range');
    this.bits = Math.max(2, Math.ceil(Math.log2(size)));
    this.tables = roundTables(key, this.bits);
  }

  /** Bytes held by the round tables. */
  get tableBytes(): number {
    return this.tables.reduce((sum, table) => sum + table.byteLength, 0);
  }

  /**
   * The permutation of a list, made once per key and size and then reused: every allocation and every status
   * change checks an index against it, and tabulating the round function costs more than many walks through it.
   */
  static of(key: Uint8Array, size: number): IndexPermutation {
    const id = `${size}:${Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1')}`;
    let permutation = cache.get(id);
    if (!permutation) {
      permutation = new IndexPermutation(key, size);
      cache.set(id, permutation);
      cachedBytes += permutation.tableBytes;
      while (cache.size > 1 && (cache.size > CACHE_LIMIT || cachedBytes > CACHE_BYTES_LIMIT)) {
        const [oldest, evicted] = cache.entries().next().value!;
        cache.delete(oldest);
        cachedBytes -= evicted.tableBytes;
      }
    }
    return permutation;
  }

  /** The index handed out for allocation number `counter` (0-based). */
  forward(counter: number): number {
    this.check(counter);
    let value = this.encrypt(counter);
    while (value >= this.size) value = this.encrypt(value);
    return value;
  }

  /** The allocation number that yields `index`: an index is allocated when this is below the list's counter. */
  inverse(index: number): number {
    this.check(index);
    let value = this.decrypt(index);
    while (value >= this.size) value = this.decrypt(value);
    return value;
  }

  private check(value: number): void {
    if (!Number.isInteger(value) || value < 0 || value >= this.size) throw new RangeError('value outside the domain');
  }

  private encrypt(value: number): number {
    const tables = this.tables;
    let u = this.bits >>> 1;
    let v = this.bits - u;
    let a = value >>> v;
    let b = value & ((1 << v) - 1);
    for (let r = 0; r < ROUNDS; r++) {
      // (A, B) of widths (u, v) → (B, A xor F(B)) of widths (v, u).
      const c = a ^ tables[r]![b]!;
      a = b;
      b = c;
      const w = u;
      u = v;
      v = w;
    }
    return ((a << v) | b) >>> 0;
  }

  private decrypt(value: number): number {
    // After an even number of rounds the widths are back to (u, v).
    const tables = this.tables;
    let u = this.bits >>> 1;
    let v = this.bits - u;
    let a = value >>> v;
    let b = value & ((1 << v) - 1);
    for (let r = ROUNDS - 1; r >= 0; r--) {
      // Undo (A, B) → (B, A xor F(B)): the previous B is the current A, the previous A is B xor F(previous B).
      const w = u;
      u = v;
      v = w;
      const previousA = b ^ tables[r]![a]!;
      b = a;
      a = previousA;
    }
    return ((a << v) | b) >>> 0;
  }
}

/**
 * F(round, half) for every half of every round: AES-256 (ECB: one block at a time, the list's key) of the block
 * (round, the output's width, the half as 4 bytes big-endian, zeros), its first 4 bytes big-endian cut to the width.
 * Round r reads the half of width v_r and yields u_r bits; the widths start at (floor(k/2), ceil(k/2)) and swap
 * every round.
 */
function roundTables(key: Uint8Array, bits: number): Uint16Array[] {
  const cipher = createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
  const tables: Uint16Array[] = [];
  let u = bits >>> 1;
  let v = bits - u;
  for (let r = 0; r < ROUNDS; r++) {
    const count = 2 ** v;
    const blocks = Buffer.alloc(count * 16);
    for (let half = 0; half < count; half++) {
      blocks[half * 16] = r;
      blocks[half * 16 + 1] = u;
      blocks.writeUInt32BE(half, half * 16 + 2);
    }
    const encrypted = cipher.update(blocks);
    const mask = (1 << u) - 1;
    const table = new Uint16Array(count);
    for (let half = 0; half < count; half++) table[half] = encrypted.readUInt32BE(half * 16) & mask;
    tables.push(table);
    [u, v] = [v, u];
  }
  cipher.final();
  return tables;
}
