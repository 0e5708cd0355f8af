import { constants, createHash, verify } from 'node:crypto';
import { NODE_HASH, type AlgorithmSpec, type DigestAlgorithm } from '../domain/algorithms.js';
import { publicKeyFromSpki } from './public-keys.js';

/**
 * Verifies a signature over `data` with a key entry's public key: the merge step's check that the signature it is
 * given was made by that key over this very signature input. PSS salts of any length verify (RFC 8017 §9.1.2).
 */
export function verifySignature(
  spki: Buffer,
  spec: AlgorithmSpec,
  hash: DigestAlgorithm,
  data: Buffer,
  signature: Buffer,
): boolean {
  const key = publicKeyFromSpki(spki);
  const nodeHash = NODE_HASH[hash];
  try {
    switch (spec.scheme) {
      case 'PKCS1':
        return verify(nodeHash, data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
      case 'PSS':
        return verify(
          nodeHash,
          data,
          { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO },
          signature,
        );
      default:
        return verify(nodeHash, data, { key, dsaEncoding: 'der' }, signature);
    }
  } catch {
    return false;
  }
}

export const digestOf = (hash: DigestAlgorithm, data: Buffer): Buffer =>
  createHash(NODE_HASH[hash]).update(data).digest();
