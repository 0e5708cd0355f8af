import { randomBytes, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';

/**
 * DSA over a given digest (FIPS 186-4 §4.6). node:crypto hashes the message itself; a DIGEST-mode input is already
 * hashed, so the signature is computed here from the key's parameters. The output is DER `Dss-Sig-Value`
 * (RFC 3279 §2.2.2), the form CMS and node:crypto verification expect.
 */
export function dsaSignDigest(privateKey: KeyObject, digest: Buffer): Buffer {
  const { p, q, g, x } = dsaParameters(privateKey);
  const qBits = q.toString(2).length;
  // The leftmost min(N, outlen) bits of the hash (FIPS 186-4 §4.6).
  let z = toBigInt(digest);
  const excess = digest.length * 8 - qBits;
  if (excess > 0) z >>= BigInt(excess);
  for (;;) {
    const k = (toBigInt(randomBytes(Math.ceil(qBits / 8) + 8)) % (q - 1n)) + 1n;
    const r = modPow(g, k, p) % q;
    if (r === 0n) continue;
    const s = (modInverse(k, q) * (z + x * r)) % q;
    if (s === 0n) continue;
    const seq = new asn1js.Sequence({
      value: [integer(r), integer(s)],
    });
    return Buffer.from(seq.toBER(false));
  }
}

function dsaParameters(privateKey: KeyObject): { p: bigint; q: bigint; g: bigint; x: bigint } {
  const der = privateKey.export({ format: 'der', type: 'pkcs8' });
  const parsed = asn1js.fromBER(new Uint8Array(der));
  const info = parsed.result as asn1js.Sequence;
  const algorithm = info.valueBlock.value[1] as asn1js.Sequence;
  const params = algorithm.valueBlock.value[1] as asn1js.Sequence;
  const [p, q, g] = params.valueBlock.value.map((v) => intOf(v as asn1js.Integer)) as [bigint, bigint, bigint];
  const octets = info.valueBlock.value[2] as asn1js.OctetString;
  const x = intOf(asn1js.fromBER(octets.valueBlock.valueHexView).result as asn1js.Integer);
  return { p, q, g, x };
}

const intOf = (value: asn1js.Integer) => toBigInt(Buffer.from(value.valueBlock.valueHexView));
const toBigInt = (bytes: Uint8Array) => (bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`));

function integer(value: bigint): asn1js.Integer {
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  if (parseInt(hex.slice(0, 2), 16) & 0x80) hex = `00${hex}`;
  return new asn1js.Integer({ valueHex: new Uint8Array(Buffer.from(hex, 'hex')) });
}

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
  }
  return result;
}

function modInverse(a: bigint, m: bigint): bigint {
  let [oldR, r] = [a % m, m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const quotient = oldR / r;
    [oldR, r] = [r, oldR - quotient * r];
    [oldS, s] = [s, oldS - quotient * s];
  }
  return ((oldS % m) + m) % m;
}
