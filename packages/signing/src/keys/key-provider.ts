import type { Sql } from '@tessera/platform';
import type { AlgorithmSpec, KeyKind } from '../domain/algorithms.js';
import type { SignRequest } from './sign-request.js';

/** The unit of work a provider may use for its own storage (the software provider's sealed keys). */
export interface ProviderUnit {
  tenantId: string;
  sql: Sql;
}

export interface ProviderKey {
  providerKid: string;
  keyKind: KeyKind;
  /** SubjectPublicKeyInfo, DER. */
  publicKeySpki: Buffer;
}

export const KEY_TYPES = ['RSA_2048', 'RSA_3072', 'RSA_4096', 'EC_P256', 'EC_P384', 'EC_P521', 'DSA_2048'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

/**
 * A key provider (issue 21 §4): where the private keys are and how they sign. The service asks it for a key by the
 * provider's own id (`providerKid`), for a key matching a certificate's public key, and to sign a digest. Every
 * algorithm it cannot do is refused before signing (`refusal`), so the caller gets a 400 naming algorithm and
 * provider rather than a token error.
 */
export interface KeyProvider {
  readonly id: string;
  readonly kind: 'software' | 'pkcs11' | 'external';
  /** Whether the tenant may use this provider at all. */
  servesTenant(tenantId: string): boolean;
  /** Whether the provider creates signatures (the external provider holds certificates only). */
  readonly signs: boolean;
  findKey(unit: ProviderUnit, providerKid: string): Promise<ProviderKey | null>;
  findKeyByPublicKey(unit: ProviderUnit, spki: Buffer): Promise<ProviderKey | null>;
  /** Why the provider cannot sign with `spec` (and the request's hash) on `key`, or null when it can. */
  refusal(key: ProviderKey, spec: AlgorithmSpec, request: Pick<SignRequest, 'hash' | 'data'>): string | null;
  sign(unit: ProviderUnit, key: ProviderKey, request: SignRequest): Promise<Buffer>;
  /** Makes a new key pair; absent on providers that do not make keys. */
  generateKey?(unit: ProviderUnit, keyType: KeyType, providerKid: string): Promise<ProviderKey>;
  close?(): Promise<void> | void;
}

/** A key provider of the right kind refuses an algorithm of another key kind. */
export function keyKindRefusal(key: ProviderKey, spec: AlgorithmSpec): string | null {
  return spec.keyKind === key.keyKind
    ? null
    : `the key ${key.providerKid} is an ${key.keyKind} key, not ${spec.keyKind}`;
}
