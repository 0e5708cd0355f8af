import { createPrivateKey, generateKeyPair as generateKeyPairCb, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { Clock, KeyManager } from '@tessera/platform';
import type { AlgorithmSpec } from '../domain/algorithms.js';
import {
  findSoftwareKey,
  findSoftwareKeyBySpki,
  insertSoftwareKey,
  type SoftwareKeyRow,
} from '../storage/software-key-rows.js';
import { keyKindRefusal, type KeyProvider, type KeyType, type ProviderKey, type ProviderUnit } from './key-provider.js';
import { keyKindOf, spkiOf, spkiSha256 } from './public-keys.js';
import type { SignRequest } from './sign-request.js';
import { signWithKeyObject } from './software-signer.js';

const generateKeyPair = promisify(generateKeyPairCb);

export const SOFTWARE_PROVIDER_ID = 'software';

const MAX_FOUND_KEYS = 4096;

/** The tenant's key-encryption key of the signing context (envelope encryption, platform key manager). */
export const signingDekAlias = (tenantId: string) => `signing:${tenantId}:dek`;

/** Additional data of a sealed private key: it opens only on its own row (tenant and provider kid). */
const sealAad = (tenantId: string, providerKid: string) =>
  Buffer.from(JSON.stringify(['tessera-signing-key', tenantId, providerKid]), 'utf8');

/**
 * The software key provider (issue 21 §4a): key pairs made by node:crypto, the private key stored as PKCS #8 DER
 * sealed by the platform's envelope encryption under the tenant's `signing:<tenant>:dek` key. Opened keys are kept
 * in memory per process (a key never changes under its provider kid). Every algorithm of the enumeration is
 * available on a key of its kind.
 */
export class SoftwareKeyProvider implements KeyProvider {
  readonly id = SOFTWARE_PROVIDER_ID;
  readonly kind = 'software' as const;
  readonly signs = true;
  private readonly opened = new Map<string, KeyObject>();
  /** Keys found by provider kid (public key and kind), per tenant: see findKey. */
  private readonly found = new Map<string, ProviderKey>();

  constructor(
    private readonly keys: KeyManager,
    private readonly clock: Clock,
  ) {}

  servesTenant(): boolean {
    return true;
  }

  /**
   * A key row is never updated or deleted (signing_software_keys has inserts only), so a key once found is kept in
   * memory, like its opened private key: every replica finds the same row, and a key made on another replica is
   * simply not known yet here (a miss reads the table; absence is never kept). Callers reach a key through its key
   * entry, read from the database on every call, so access decisions never come from here.
   */
  async findKey(unit: ProviderUnit, providerKid: string): Promise<ProviderKey | null> {
    const cacheKey = `${unit.tenantId}\u0000${providerKid}`;
    const known = this.found.get(cacheKey);
    if (known) return known;
    const key = toKey(await findSoftwareKey(unit.sql, providerKid));
    if (key) {
      this.found.set(cacheKey, key);
      if (this.found.size > MAX_FOUND_KEYS) this.found.delete(this.found.keys().next().value!);
    }
    return key;
  }

  async findKeyByPublicKey(unit: ProviderUnit, spki: Buffer): Promise<ProviderKey | null> {
    return toKey(await findSoftwareKeyBySpki(unit.sql, spkiSha256(spki)));
  }

  refusal(key: ProviderKey, spec: AlgorithmSpec): string | null {
    return keyKindRefusal(key, spec);
  }

  async sign(unit: ProviderUnit, key: ProviderKey, request: SignRequest): Promise<Buffer> {
    return signWithKeyObject(await this.privateKey(unit, key.providerKid), request);
  }

  async generateKey(unit: ProviderUnit, keyType: KeyType, providerKid: string): Promise<ProviderKey> {
    const { privateKey } = await generate(keyType);
    const spki = spkiOf(privateKey);
    const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
    await this.keys.ensureSymmetric(signingDekAlias(unit.tenantId), 'A256GCM', { sql: unit.sql });
    const sealed = await this.keys.encrypt(signingDekAlias(unit.tenantId), pkcs8, sealAad(unit.tenantId, providerKid), {
      sql: unit.sql,
    });
    const inserted = await insertSoftwareKey(unit.sql, {
      provider_kid: providerKid,
      key_type: keyType,
      public_key_spki: spki.toString('base64'),
      spki_sha256: spkiSha256(spki),
      sealed_private_key: sealed.ciphertext,
      created_at: this.clock.now(),
    });
    if (!inserted) throw new ProviderKeyExistsError(providerKid);
    return { providerKid, keyKind: keyKindOf(privateKey)!, publicKeySpki: spki };
  }

  private async privateKey(unit: ProviderUnit, providerKid: string): Promise<KeyObject> {
    const cacheKey = `${unit.tenantId}\u0000${providerKid}`;
    const cached = this.opened.get(cacheKey);
    if (cached) return cached;
    const row = await findSoftwareKey(unit.sql, providerKid);
    if (!row) throw new Error(`software key ${providerKid} vanished`);
    const { plaintext } = await this.keys.decrypt(row.sealed_private_key, sealAad(unit.tenantId, providerKid), {
      sql: unit.sql,
    });
    const key = createPrivateKey({ key: Buffer.from(plaintext), format: 'der', type: 'pkcs8' });
    this.opened.set(cacheKey, key);
    return key;
  }
}

export class ProviderKeyExistsError extends Error {
  constructor(readonly providerKid: string) {
    super(`provider key ${providerKid} exists`);
  }
}

function toKey(row: SoftwareKeyRow | null): ProviderKey | null {
  if (!row) return null;
  const spki = Buffer.from(row.public_key_spki, 'base64');
  const kind = row.key_type.startsWith('RSA') ? 'RSA' : row.key_type.startsWith('EC') ? 'EC' : 'DSA';
  return { providerKid: row.provider_kid, keyKind: kind, publicKeySpki: spki };
}

function generate(keyType: KeyType) {
  switch (keyType) {
    case 'RSA_2048':
    case 'RSA_3072':
    case 'RSA_4096':
      return generateKeyPair('rsa', { modulusLength: Number(keyType.slice(4)) });
    case 'EC_P256':
    case 'EC_P384':
    case 'EC_P521':
      return generateKeyPair('ec', { namedCurve: `P-${keyType.slice(4)}` });
    case 'DSA_2048':
      // FIPS 186-4 §4.2: L = 2048 with N = 256 (node:crypto supports DSA key generation through OpenSSL).
      return generateKeyPair('dsa', { modulusLength: 2048, divisorLength: 256 });
  }
}
