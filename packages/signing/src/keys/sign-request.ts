import type { AlgorithmSpec, DigestAlgorithm } from '../domain/algorithms.js';

/**
 * What a provider is asked to sign: always the digest, and the data itself when the service has it (DOCUMENT mode),
 * so that a provider with a combined hash-and-sign mechanism may use it. `hash` is the effective digest algorithm
 * (the algorithm's own, or the sign input's for a RAW algorithm).
 */
export interface SignRequest {
  spec: AlgorithmSpec;
  hash: DigestAlgorithm;
  digest: Buffer;
  data?: Buffer | undefined;
}
