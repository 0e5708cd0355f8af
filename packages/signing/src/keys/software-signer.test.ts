import { constants, createHash, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  NODE_HASH,
  SIGNATURE_ALGORITHMS,
  algorithmSpec,
  effectiveDigest,
  type DigestAlgorithm,
  type KeyKind,
} from '../domain/algorithms.js';
import { signWithKeyObject } from './software-signer.js';

/**
 * Every SignatureAlgorithm of 002 §2.1 (and ECDSA) on a software key, over the data (DOCUMENT) and over its digest
 * (DIGEST), each signature verified by node:crypto with the public key: PKCS #1 v1.5 with its DigestInfo, PSS with
 * MGF1 over the hash of the algorithm's name and a salt of the hash's length, DER ECDSA and DSA.
 */
const keys: Record<KeyKind, { privateKey: KeyObject; publicKey: KeyObject }> = {
  RSA: generateKeyPairSync('rsa', { modulusLength: 2048 }),
  EC: generateKeyPairSync('ec', { namedCurve: 'P-384' }),
  DSA: generateKeyPairSync('dsa', { modulusLength: 2048, divisorLength: 256 }),
};
const data = Buffer.from('the document of 002 §4.1 operation 3');

function verifies(publicKey: KeyObject, hash: DigestAlgorithm, scheme: string, signature: Buffer): boolean {
  const nodeHash = NODE_HASH[hash];
  if (scheme === 'PSS')
    return verify(
      nodeHash,
      data,
      { key: publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: createHash(nodeHash).digest().length },
      signature,
    );
  if (scheme === 'PKCS1')
    return verify(nodeHash, data, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, signature);
  return verify(nodeHash, data, { key: publicKey, dsaEncoding: 'der' }, signature);
}

describe('software signatures over the whole algorithm enumeration', () => {
  const rows = SIGNATURE_ALGORITHMS.flatMap((name) => {
    const spec = algorithmSpec(name);
    // RAW algorithms take the hash of the digest they are given: SHA-256 and SHA3-512 both tried.
    const hashes: DigestAlgorithm[] = spec.digest ? [spec.digest] : ['SHA256', 'SHA3_512'];
    return hashes.map((hash) => [name, hash] as const);
  });

  it.each(rows)('%s (%s) over the digest and over the data verifies with node:crypto', (name, hash) => {
    const spec = algorithmSpec(name);
    const effective = effectiveDigest(spec, hash);
    const { privateKey, publicKey } = keys[spec.keyKind];
    const digest = createHash(NODE_HASH[effective]).update(data).digest();
    const overDigest = signWithKeyObject(privateKey, { spec, hash: effective, digest });
    expect(verifies(publicKey, effective, spec.scheme, overDigest)).toBe(true);
    const overData = signWithKeyObject(privateKey, { spec, hash: effective, digest, data });
    expect(verifies(publicKey, effective, spec.scheme, overData)).toBe(true);
    // A signature does not verify under another hash.
    const other: DigestAlgorithm = effective === 'SHA512' ? 'SHA256' : 'SHA512';
    expect(verifies(publicKey, other, spec.scheme, overDigest)).toBe(false);
  });
});
