import { createHash } from 'node:crypto';

/**
 * Remembers DPoP proof `jti`s for as long as a proof could be accepted (RFC 9449 §11.1). `rememberOnce` records
 * the key until `expiresAt` and answers true, or answers false when the key is already held and not expired.
 * It must be atomic: two concurrent calls with one key never both answer true.
 *
 * `forget` drops a key that `rememberOnce` recorded (answered true) for a proof that then failed its signature
 * check: verifyDpopProof sends the write before it checks the signature, so that the store's round trip and the
 * check overlap, and a proof that is not accepted must not use up its `jti`.
 */
export interface DpopReplayStore {
  rememberOnce(key: string, expiresAt: Date): Promise<boolean>;
  forget(key: string): Promise<void>;
}

/**
 * The replay key of a proof: SHA-256 over the key thumbprint, the normalised `htu` and the `jti`. RFC 9449 §11.1
 * keeps a `jti` "in the context of the target URI"; the thumbprint keeps one client's `jti` from blocking
 * another's, and hashing bounds the length of a client-chosen value.
 */
export function dpopReplayKey(jwkThumbprint: string, htu: string, jti: string): string {
  return createHash('sha256').update(`${jwkThumbprint}\n${htu}\n${jti}`, 'utf8').digest('base64url');
}
