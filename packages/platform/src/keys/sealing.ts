import type { KeyObject } from 'node:crypto';
import { gcmDecrypt, gcmEncrypt } from './aes-gcm.js';

/**
 * Key material at rest: every private key (kms_keys) and every symmetric secret (kms_symmetric_keys) is sealed
 * with AES-256-GCM under the master key, with the row's identity as additional authenticated data, so that a
 * ciphertext moved onto another row fails to open instead of being used under the wrong kid.
 */
const SEAL_FORMAT = 'v1';

/** Binds a sealed private key to its kms_keys row. */
export function privateKeyAad(alias: string, version: number, kid: string): Buffer {
  return Buffer.from(JSON.stringify(['tessera-kms', alias, version, kid]), 'utf8');
}

/** Binds a sealed symmetric secret to its kms_symmetric_keys row, algorithm and exportability included. */
export function symmetricKeyAad(
  alias: string,
  version: number,
  kid: string,
  algorithm: string,
  exportable: boolean,
): Buffer {
  return Buffer.from(JSON.stringify(['tessera-kms-symmetric', alias, version, kid, algorithm, exportable]), 'utf8');
}

/** `v1.<iv>.<ciphertext>.<tag>`, base64url parts; a random 96-bit IV per key (SP 800-38D §8.2.2). */
export function sealSecret(masterKey: KeyObject, plaintext: Buffer, aad: Buffer): string {
  const { iv, ciphertext, tag } = gcmEncrypt(masterKey, plaintext, aad);
  return [SEAL_FORMAT, iv.toString('base64url'), ciphertext.toString('base64url'), tag.toString('base64url')].join('.');
}

export function openSealed(masterKey: KeyObject, sealed: string, aad: Buffer): Buffer {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== SEAL_FORMAT) throw new Error('unknown sealed key format');
  const [iv, ciphertext, tag] = parts.slice(1).map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer];
  return gcmDecrypt(masterKey, { iv, ciphertext, tag }, aad);
}
