import { createSecretKey } from 'node:crypto';
import type { JWK } from 'jose';
import type { JoinedUnit } from '../commands/command.js';
import type { Database } from '../db/database.js';
import { systemClock, type Clock } from '../observability/clock.js';
import { Metrics, type KmsSeries } from '../observability/metrics.js';
import type {
  ActiveSigningKey,
  DecryptedData,
  EncryptedData,
  KeyInfo,
  KeyManager,
  Mac,
  Signature,
  SigningAlgorithm,
  SymmetricAlgorithm,
  SymmetricCallOptions,
  SymmetricKeyInfo,
} from './key-manager.js';
import { MASTER_KEY_BYTES } from './master-key.js';
import { SigningKeys, type ActiveKey } from './signing-keys.js';
import { SymmetricKeys } from './symmetric-keys.js';

export { SIGNING_ALGORITHMS } from './signing-algorithms.js';
export { DEFAULT_RETAIN_SECONDS } from './signing-keys.js';
export { SYMMETRIC_ALGORITHMS } from './symmetric-key-rows.js';
export {
  SYMMETRIC_KEYS_MIGRATION_ID,
  symmetricKeysMigration,
  withSymmetricKeysMigration,
} from './symmetric-keys-migration.js';

export const DEFAULT_ACTIVE_KEY_RECHECK_SECONDS = 5;

export interface SoftwareKeyManagerOptions {
  db: Database;
  /** 32 bytes (see master-key.ts). */
  masterKey: Buffer;
  metrics?: Metrics;
  clock?: Clock;
  /** How long a replica uses its cached active version before it looks for a rotation made elsewhere. */
  activeKeyRecheckSeconds?: number;
}

/**
 * The software key-management provider (issue 2 §11, issue 5 §5). Key pairs come from node:crypto; each private key
 * (PKCS#8 DER) is sealed with AES-256-GCM under the master key before it reaches `kms_keys` (sealing.ts), with the
 * row's identity as additional authenticated data, so a ciphertext moved onto another row fails to open instead of
 * signing under the wrong kid (signing-keys.ts). Symmetric keys (HMAC, envelope encryption) are kept the same way
 * in `kms_symmetric_keys` (symmetric-keys.ts). Every call is counted by operation and result. A PKCS#11 or cloud
 * provider implements the same KeyManager with the keys held in the device.
 */
export class SoftwareKeyManager implements KeyManager {
  private readonly metrics: Metrics;
  /**
   * kms_calls_total and kms_call_duration_seconds (001 §4.5 "key-management call metrics"): each operation's series
   * by result, kept here so that a call records without building or hashing its labels (Metrics.kmsSeries).
   */
  private readonly series = new Map<string, { success: KmsSeries; failure: KmsSeries }>();
  private readonly signing: SigningKeys;
  private readonly symmetric: SymmetricKeys;
  /** One ActiveSigningKey per loaded version, made when first asked for: the ready path allocates nothing. */
  private readonly handles = new WeakMap<ActiveKey, ActiveSigningKey>();

  constructor(options: SoftwareKeyManagerOptions) {
    if (options.masterKey.length !== MASTER_KEY_BYTES)
      throw new Error(`the master key must be ${MASTER_KEY_BYTES} bytes`);
    this.metrics = options.metrics ?? new Metrics({ collectDefault: false });
    const shared = {
      db: options.db,
      // A secret KeyObject keeps the raw bytes out of accidental serialisation and logs.
      masterKey: createSecretKey(Buffer.from(options.masterKey)),
      clock: options.clock ?? systemClock,
      recheckMs: (options.activeKeyRecheckSeconds ?? DEFAULT_ACTIVE_KEY_RECHECK_SECONDS) * 1000,
    };
    this.signing = new SigningKeys(shared);
    this.symmetric = new SymmetricKeys(shared);
  }

  // --- Signing keys (signing-keys.ts) ----------------------------------------------------------------------

  create(alias: string, algorithm: SigningAlgorithm): Promise<KeyInfo> {
    return this.observe('create', () => this.signing.create(alias, algorithm));
  }

  ensure(alias: string, algorithm: SigningAlgorithm): Promise<KeyInfo> {
    return this.observe('ensure', () => this.signing.ensure(alias, algorithm));
  }

  sign(alias: string, data: Uint8Array): Promise<Signature> {
    return this.observe('sign', () => this.signing.sign(alias, data));
  }

  activeSigningKey(alias: string): Promise<ActiveSigningKey> {
    return this.observe('active_signing_key', async () => this.handle(await this.signing.activeKey(alias)));
  }

  /** A read of memory, not a call to the provider's store: not counted in kms_calls_total (its signatures are). */
  readyActiveSigningKey(alias: string): ActiveSigningKey | undefined {
    const key = this.signing.readyActiveKey(alias);
    return key && this.handle(key);
  }

  publicJwk(alias: string): Promise<JWK> {
    return this.observe('public_jwk', () => this.signing.publicJwk(alias));
  }

  publishedJwks(alias: string): Promise<JWK[]> {
    return this.observe('published_jwks', () => this.signing.publishedJwks(alias));
  }

  publicJwkByKid(kid: string): Promise<JWK | null> {
    return this.observe('public_jwk_by_kid', () => this.signing.publicJwkByKid(kid));
  }

  rotate(alias: string, options?: { retainSeconds?: number; unit?: JoinedUnit | undefined }): Promise<KeyInfo> {
    return this.observe('rotate', () => this.signing.rotate(alias, options));
  }

  list(): Promise<KeyInfo[]> {
    return this.observe('list', () => this.signing.list());
  }

  health(): Promise<void> {
    return this.observe('health', () => this.signing.health());
  }

  // --- Symmetric keys (symmetric-keys.ts) ------------------------------------------------------------------

  ensureSymmetric(
    alias: string,
    algorithm: SymmetricAlgorithm,
    options?: SymmetricCallOptions & { exportable?: boolean },
  ): Promise<SymmetricKeyInfo> {
    return this.observe('ensure_symmetric', () => this.symmetric.ensure(alias, algorithm, options));
  }

  hmac(alias: string, data: Uint8Array, options?: SymmetricCallOptions): Promise<Mac> {
    return this.observe('hmac', () => this.symmetric.hmac(alias, data, options));
  }

  hmacWithVersion(alias: string, version: number, data: Uint8Array, options?: SymmetricCallOptions): Promise<Mac> {
    return this.observe('hmac', () => this.symmetric.hmacWithVersion(alias, version, data, options));
  }

  encrypt(
    alias: string,
    plaintext: Uint8Array,
    aad: Uint8Array,
    options?: SymmetricCallOptions & { version?: number },
  ): Promise<EncryptedData> {
    return this.observe('encrypt', () => this.symmetric.encrypt(alias, plaintext, aad, options));
  }

  decrypt(ciphertext: string, aad: Uint8Array, options?: SymmetricCallOptions): Promise<DecryptedData> {
    return this.observe('decrypt', () => this.symmetric.decrypt(ciphertext, aad, options));
  }

  rewrap(ciphertext: string, options?: SymmetricCallOptions & { version?: number }): Promise<EncryptedData> {
    return this.observe('rewrap', () => this.symmetric.rewrap(ciphertext, options));
  }

  addSymmetricVersion(alias: string): Promise<SymmetricKeyInfo> {
    return this.observe('add_symmetric_version', () => this.symmetric.addVersion(alias));
  }

  activateSymmetricVersion(alias: string, version: number): Promise<SymmetricKeyInfo> {
    return this.observe('activate_symmetric_version', () => this.symmetric.activate(alias, version));
  }

  retireSymmetricVersion(alias: string, version: number): Promise<SymmetricKeyInfo> {
    return this.observe('retire_symmetric_version', () => this.symmetric.retire(alias, version));
  }

  rotateSymmetric(alias: string): Promise<SymmetricKeyInfo> {
    return this.observe('rotate_symmetric', () => this.symmetric.rotate(alias));
  }

  listSymmetric(alias: string): Promise<SymmetricKeyInfo[]> {
    return this.observe('list_symmetric', () => this.symmetric.list(alias));
  }

  exportSymmetricKey(alias: string, version?: number): Promise<{ info: SymmetricKeyInfo; key: Uint8Array }> {
    return this.observe('export_symmetric', () => this.symmetric.export(alias, version));
  }

  private handle(key: ActiveKey): ActiveSigningKey {
    let handle = this.handles.get(key);
    if (!handle) {
      handle = Object.freeze({
        kid: key.info.kid,
        algorithm: key.info.algorithm,
        publicJwk: key.publicJwk,
        // Counted as the provider's `sign` calls are: one signature, one call.
        sign: (data: Uint8Array): Promise<Signature> =>
          this.recorded('sign', performance.now(), this.signing.signWith(key, data)),
      });
      this.handles.set(key, handle);
    }
    return handle;
  }

  private observe<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let call: Promise<T>;
    try {
      call = fn();
    } catch (error) {
      // A provider method that throws before its first await still answers with a rejection, counted as a failure.
      call = Promise.reject(error as Error);
    }
    return this.recorded(operation, started, call);
  }

  /** Records the call that `started` at its end, by result, and answers what it answered. */
  private recorded<T>(operation: string, started: number, call: Promise<T>): Promise<T> {
    const series = this.seriesOf(operation);
    return call.then(
      (value) => {
        series.success.record(CALL, (performance.now() - started) / 1000);
        return value;
      },
      (error: unknown) => {
        series.failure.record(CALL, (performance.now() - started) / 1000);
        throw error;
      },
    );
  }

  private seriesOf(operation: string): { success: KmsSeries; failure: KmsSeries } {
    let series = this.series.get(operation);
    if (!series) {
      series = {
        success: this.metrics.kmsSeries(operation, 'success'),
        failure: this.metrics.kmsSeries(operation, 'failure'),
      };
      this.series.set(operation, series);
    }
    return series;
  }
}

/** The outcome a key-management call is recorded under: its result is the series' own label. */
const CALL = 'call';
