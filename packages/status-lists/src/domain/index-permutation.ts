import { createCipheriv, type Cipher } from 'node:crypto';

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

/** Permutations already keyed (an AES key schedule per list, not per request), by key and size; bounded. */
const CACHE_LIMIT = 256;
const cache = new Map<string, IndexPermutation>();

export class IndexPermutation {
  private readonly bits: number;
  private readonly cipher: Cipher;
  private readonly block = Buffer.alloc(16);

  constructor(
    key: Uint8Array,
    readonly size: number,
  ) {
    if (!Number.isInteger(size) || size < 1 || size > 2 ** 30) throw new RangeError('permutation size out of range');
    this.bits = Math.max(2, Math.ceil(Math.log2(size)));
    // ECB of one block at a time is AES as a pseudo-random function; the cipher object serves every call.
    this.cipher = createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
  }

  /**
   * The permutation of a list, made once per key and size and then reused: every allocation and every status
   * change checks an index against it, and making the cipher costs more than the walk through it.
   */
  static of(key: Uint8Array, size: number): IndexPermutation {
    const id = `${size}:${Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1')}`;
    let permutation = cache.get(id);
    if (!permutation) {
      permutation = new IndexPermutation(key, size);
      if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
      cache.set(id, permutation);
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

  /** F(round, half): AES of (round, the other half's width, the half), cut to `width` bits. */
  private round(round: number, half: number, width: number): number {
    const block = this.block;
    block[0] = round;
    block[1] = width;
    block.writeUInt32BE(half, 2);
    return this.cipher.update(block).readUInt32BE(0) & ((1 << width) - 1);
  }

  private encrypt(value: number): number {
    let u = this.bits >>> 1;
    let v = this.bits - u;
    let a = value >>> v;
    let b = value & ((1 << v) - 1);
    for (let r = 0; r < ROUNDS; r++) {
      // (A, B) of widths (u, v) → (B, A xor F(B)) of widths (v, u).
      const c = a ^ this.round(r, b, u);
      a = b;
      b = c;
      [u, v] = [v, u];
    }
    return ((a << v) | b) >>> 0;
  }

  private decrypt(value: number): number {
    // After an even number of rounds the widths are back to (u, v).
    let u = this.bits >>> 1;
    let v = this.bits - u;
    let a = value >>> v;
    let b = value & ((1 << v) - 1);
    for (let r = ROUNDS - 1; r >= 0; r--) {
      // Undo (A, B) → (B, A xor F(B)): the previous B is the current A, the previous A is B xor F(previous B).
      [u, v] = [v, u];
      const previousA = b ^ this.round(r, a, u);
      b = a;
      a = previousA;
    }
    return ((a << v) | b) >>> 0;
  }
}
