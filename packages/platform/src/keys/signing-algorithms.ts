import {
  constants,
  generateKeyPair,
  sign as cryptoSign,
  type KeyObject,
  type SignKeyObjectInput,
  type SignPrivateKeyInput,
} from 'node:crypto';
import { AppError } from '../errors/app-error.js';
import type { SigningAlgorithm } from './key-manager.js';

/** Per-algorithm settings of the signing keys (RFC 7518 §3, RFC 8037 §3.1). */
export const SIGNING_ALGORITHMS: readonly SigningAlgorithm[] = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'];

export interface SigningParameters {
  digest: string | null;
  signingKey: SignKeyObjectInput | SignPrivateKeyInput;
}

export function generateSigningKeyPair(
  algorithm: SigningAlgorithm,
): Promise<{ publicKey: KeyObject; privateKey: KeyObject }> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, publicKey: KeyObject, privateKey: KeyObject) =>
      error ? reject(error) : resolve({ publicKey, privateKey });
    switch (algorithm) {
      case 'RS256':
      case 'PS256':
        // RFC 7518 §3.3 and §3.5: 2048 bits or more.
        return generateKeyPair('rsa', { modulusLength: 2048, publicExponent: 0x10001 }, done);
      case 'ES256':
        return generateKeyPair('ec', { namedCurve: 'P-256' }, done);
      case 'ES384':
        return generateKeyPair('ec', { namedCurve: 'P-384' }, done);
      case 'EdDSA':
        return generateKeyPair('ed25519', {}, done);
    }
  });
}

export function signingParameters(algorithm: SigningAlgorithm, key: KeyObject): SigningParameters {
  switch (algorithm) {
    case 'RS256':
      return { digest: 'sha256', signingKey: { key } };
    case 'PS256':
      // RFC 7518 §3.5: MGF1 with SHA-256 and a salt as long as the hash output.
      return { digest: 'sha256', signingKey: { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } };
    case 'ES256':
      // RFC 7518 §3.4: JWS carries R || S (IEEE P1363), not DER.
      return { digest: 'sha256', signingKey: { key, dsaEncoding: 'ieee-p1363' } };
    case 'ES384':
      return { digest: 'sha384', signingKey: { key, dsaEncoding: 'ieee-p1363' } };
    case 'EdDSA':
      // Ed25519 hashes internally (RFC 8032); node:crypto takes no digest for it.
      return { digest: null, signingKey: { key } };
  }
}

/** The callback form runs on the libuv thread pool: RSA signing does not block the event loop. */
export function signAsync(
  digest: string | null,
  data: Uint8Array,
  key: SignKeyObjectInput | SignPrivateKeyInput,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    cryptoSign(digest, data, key, (error, signature) => (error ? reject(error) : resolve(signature)));
  });
}

/**
 * Whether an algorithm's signatures are made on the libuv thread pool (RSA: some 300 µs each on a two-core VM, too
 * long to hold the event loop) or on the loop itself (ECDSA and EdDSA: some 30 µs for P-256, about what the hand-off
 * to the pool costs on top of it: 52–76 µs of CPU per P-256 signature through the pool against 29–37 µs on the loop,
 * measured on the bench VM). docs/decisions.md, "Signatures".
 */
export function signsOnThreadPool(algorithm: SigningAlgorithm): boolean {
  return algorithm === 'RS256' || algorithm === 'PS256';
}

/** A signature of `data` under the key, on the thread pool or on the loop as signsOnThreadPool says. */
export function signFor(
  algorithm: SigningAlgorithm,
  parameters: SigningParameters,
  data: Uint8Array,
): Promise<Uint8Array> {
  if (signsOnThreadPool(algorithm)) return signAsync(parameters.digest, data, parameters.signingKey);
  try {
    return Promise.resolve(cryptoSign(parameters.digest, data, parameters.signingKey));
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

export function assertAlgorithm(algorithm: string): asserts algorithm is SigningAlgorithm {
  if (!(SIGNING_ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw new AppError('invalid_request', `Unsupported signing algorithm; one of ${SIGNING_ALGORITHMS.join(', ')}.`, {
      field: 'algorithm',
    });
  }
}

export function parseAlgorithm(algorithm: string): SigningAlgorithm {
  if (!(SIGNING_ALGORITHMS as readonly string[]).includes(algorithm))
    throw new Error(`stored key has an unsupported algorithm ${algorithm}`);
  return algorithm as SigningAlgorithm;
}
