import { DIGEST_LENGTH, DIGEST_OID, type DigestAlgorithm } from '../domain/algorithms.js';

/**
 * DigestInfo (RFC 8017 §9.2, note 1): what a PKCS #1 v1.5 signature encodes around the hash. A signer that is given
 * only the digest (DIGEST mode, or a token's plain `CKM_RSA_PKCS`) must add it itself.
 */
export function digestInfo(algorithm: DigestAlgorithm, digest: Uint8Array): Buffer {
  const oid = oidBytes(DIGEST_OID[algorithm]);
  const length = DIGEST_LENGTH[algorithm];
  if (digest.length !== length) throw new RangeError(`a ${algorithm} digest has ${length} bytes`);
  const algorithmId = Buffer.concat([Buffer.from([0x06, oid.length]), oid, Buffer.from([0x05, 0x00])]);
  const inner = Buffer.concat([
    Buffer.from([0x30, algorithmId.length]),
    algorithmId,
    Buffer.from([0x04, length]),
    digest,
  ]);
  return Buffer.concat([Buffer.from([0x30, inner.length]), inner]);
}

function oidBytes(oid: string): Buffer {
  const parts = oid.split('.').map(Number);
  const bytes = [parts[0]! * 40 + parts[1]!];
  for (const part of parts.slice(2)) {
    const chunk = [part & 0x7f];
    for (let rest = part >> 7; rest > 0; rest >>= 7) chunk.unshift((rest & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return Buffer.from(bytes);
}
