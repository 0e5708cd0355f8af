import { createHash, randomBytes } from 'node:crypto';

/**
 * EMSA-PSS encoding (RFC 8017 §9.1.1) of a given message hash, with MGF1 over the same hash and a salt as long as
 * the hash (RFC 8017 §9.1 note 4, the usual choice). node:crypto signs PSS only over a message it hashes itself;
 * over a digest (DIGEST mode) the encoded message goes through the raw RSA private operation.
 */
export function emsaPssEncode(mHash: Buffer, hash: string, modulusBits: number): Buffer {
  const hLen = mHash.length;
  const emBits = modulusBits - 1;
  const emLen = Math.ceil(emBits / 8);
  if (emLen < 2 * hLen + 2) throw new RangeError('the RSA key is too short for this hash');
  const salt = randomBytes(hLen);
  const h = createHash(hash)
    .update(Buffer.concat([Buffer.alloc(8), mHash, salt]))
    .digest();
  const db = Buffer.concat([Buffer.alloc(emLen - 2 * hLen - 2), Buffer.from([0x01]), salt]);
  const mask = mgf1(h, emLen - hLen - 1, hash);
  for (let i = 0; i < db.length; i++) db[i]! ^= mask[i]!;
  db[0]! &= 0xff >> (8 * emLen - emBits);
  const em = Buffer.concat([db, h, Buffer.from([0xbc])]);
  // The raw RSA operation takes an input as long as the modulus.
  const k = Math.ceil(modulusBits / 8);
  return em.length === k ? em : Buffer.concat([Buffer.alloc(k - em.length), em]);
}

/** MGF1 (RFC 8017 §B.2.1). */
function mgf1(seed: Buffer, length: number, hash: string): Buffer {
  const blocks: Buffer[] = [];
  for (let counter = 0; blocks.length * seed.length < length; counter++) {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    blocks.push(createHash(hash).update(seed).update(c).digest());
  }
  return Buffer.concat(blocks).subarray(0, length);
}
