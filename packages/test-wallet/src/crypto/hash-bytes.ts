import { createHash } from 'node:crypto';

export type HashName = 'sha-256' | 'sha-384' | 'sha-512';

/** Hash names as written in the IANA "Named Information Hash Algorithm" registry (used by `_sd_alg`, RFC 9901 §4.1.1). */
export function hashBytes(data: Uint8Array | string, algorithm: HashName = 'sha-256'): Uint8Array {
  const nodeName = algorithm.replace('-', '');
  return new Uint8Array(createHash(nodeName).update(data).digest());
}
