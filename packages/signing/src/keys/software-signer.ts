import { constants, privateEncrypt, sign, type KeyObject } from 'node:crypto';
import { p256, p384, p521 } from '@noble/curves/nist';
import { NODE_HASH } from '../domain/algorithms.js';
import { digestInfo } from './digest-info.js';
import { dsaSignDigest } from './dsa-prehashed.js';
import { emsaPssEncode } from './pss.js';
import type { SignRequest } from './sign-request.js';

/**
 * Signs with a private key held in memory. Over the data itself node:crypto does the whole job; over a given digest
 * each scheme is completed by hand: PKCS #1 v1.5 with its DigestInfo through the RSA private operation, PSS through
 * its encoding (RFC 8017 §9.1.1), ECDSA with @noble/curves, DSA per FIPS 186-4. ECDSA and DSA signatures are DER.
 */
export function signWithKeyObject(privateKey: KeyObject, request: SignRequest): Buffer {
  const { spec, hash, digest, data } = request;
  const nodeHash = NODE_HASH[hash];
  if (data !== undefined) {
    switch (spec.scheme) {
      case 'PKCS1':
        return sign(nodeHash, data, { key: privateKey, padding: constants.RSA_PKCS1_PADDING });
      case 'PSS':
        return sign(nodeHash, data, {
          key: privateKey,
          padding: constants.RSA_PKCS1_PSS_PADDING,
          saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
        });
      case 'ECDSA':
      case 'DSA':
        return sign(nodeHash, data, { key: privateKey, dsaEncoding: 'der' });
    }
  }
  switch (spec.scheme) {
    case 'PKCS1':
      return privateEncrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, digestInfo(hash, digest));
    case 'PSS': {
      const bits = privateKey.asymmetricKeyDetails?.modulusLength ?? 0;
      return privateEncrypt(
        { key: privateKey, padding: constants.RSA_NO_PADDING },
        emsaPssEncode(digest, nodeHash, bits),
      );
    }
    case 'ECDSA':
      return ecdsaSignDigest(privateKey, digest);
    case 'DSA':
      return dsaSignDigest(privateKey, digest);
  }
}

const CURVES = { 'P-256': p256, 'P-384': p384, 'P-521': p521 } as const;

function ecdsaSignDigest(privateKey: KeyObject, digest: Buffer): Buffer {
  const jwk = privateKey.export({ format: 'jwk' });
  const curve = CURVES[jwk.crv as keyof typeof CURVES];
  if (!curve || !jwk.d) throw new Error(`unsupported curve ${String(jwk.crv)}`);
  const signature = curve.sign(digest, Buffer.from(jwk.d, 'base64url'), { prehash: false, lowS: true });
  return Buffer.from(signature.toDERRawBytes());
}
