import { createPrivateKey, createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Database, Sql } from '../db/database.js';
import { AppError } from '../errors/app-error.js';
import { systemClock, type Clock } from '../observability/clock.js';
import { Metrics } from '../observability/metrics.js';
import { alreadyExists, assertAlias, sealedKeyUnusable, toIso, unknownAlias } from './key-errors.js';
import type {
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
import { openSealed, privateKeyAad, sealSecret } from './sealing.js';
import {
  assertAlgorithm,
  generateSigningKeyPair,
  parseAlgorithm,
  signAsync,
  signingParameters,
  type SigningParameters,
} from './signing-algorithms.js';
import { SymmetricKeys } from './symmetric-keys.js';

export { SIGNING_ALGORITHMS } from './signing-algorithms.js';
export { SYMMETRIC_ALGORITHMS } from './symmetric-keys.js';
export {
  SYMMETRIC_KEYS_MIGRATION_ID,
  symmetricKeysMigration,
  withSymmetricKeysMigration,
} from './symmetric-keys-migration.js';

/** A retired version stays published one day plus an hour of clock skew and in-flight tokens. */
export const DEFAULT_RETAIN_SECONDS = 86_400 + 3_600;
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

interface KeyRow {
  alias: string;
  version: number;
  kid: string;
  algorithm: string;
  public_jwk: JWK;
  encrypted_private: string;
  state: 'active' | 'retired';
  created_at: Date | string;
  publish_until: Date | string | null;
}

/** The decrypted active version of an alias, held in memory so that signing needs no database round trip. */
interface ActiveKey extends SigningParameters {
  info: KeyInfo;
  publicJwk: JWK;
  checkedAt: number;
}

const ROW_COLUMNS = 'alias, version, kid, algorithm, public_jwk, encrypted_private, state, created_at, publish_until';

/**
 * The software key-management provider (issue 2 §11, issue 5 §5). Key pairs come from node:crypto; each private key
 * (PKCS#8 DER) is sealed with AES-256-GCM under the master key before it reaches `kms_keys` (sealing.ts), with the
 * row's identity as additional authenticated data, so a ciphertext moved onto another row fails to open instead of
 * signing under the wrong kid. Symmetric keys (HMAC, envelope encryption) are kept the same way in
 * `kms_symmetric_keys` (symmetric-keys.ts). A PKCS#11 or cloud provider implements the same KeyManager with the keys
 * held in the device.
 */
export class SoftwareKeyManager implements KeyManager {
  private readonly db: Database;
  private readonly masterKey: KeyObject;
  private readonly metrics: Metrics;
  private readonly clock: Clock;
  private readonly recheckMs: number;
  private readonly symmetric: SymmetricKeys;
  private readonly active = new Map<string, ActiveKey>();
  private readonly loading = new Map<string, Promise<ActiveKey>>();
  private readonly ensuring = new Map<string, Promise<KeyInfo>>();
  /** A kid names one immutable public key, so lookups by kid are cached for good. */
  private readonly jwkByKid = new Map<string, JWK>();
  private healthyKid: string | null = null;

  constructor(options: SoftwareKeyManagerOptions) {
    if (options.masterKey.length !== MASTER_KEY_BYTES)
      throw new Error(`the master key must be ${MASTER_KEY_BYTES} bytes`);
    this.db = options.db;
    // A secret KeyObject keeps the raw bytes out of accidental serialisation and logs.
    this.masterKey = createSecretKey(Buffer.from(options.masterKey));
    this.metrics = options.metrics ?? new Metrics({ collectDefault: false });
    this.clock = options.clock ?? systemClock;
    this.recheckMs = (options.activeKeyRecheckSeconds ?? DEFAULT_ACTIVE_KEY_RECHECK_SECONDS) * 1000;
    this.symmetric = new SymmetricKeys({
      db: this.db,
      masterKey: this.masterKey,
      clock: this.clock,
      recheckMs: this.recheckMs,
    });
  }

  create(alias: string, algorithm: SigningAlgorithm): Promise<KeyInfo> {
    return this.observe('create', async () => {
      assertAlias(alias);
      assertAlgorithm(algorithm);
      const pair = await generateSigningKeyPair(algorithm);
      const row = await this.db.withPlatform(async (sql) => {
        const versionExists = await sql.query(`SELECT 1 FROM kms_keys WHERE alias = $1 LIMIT 1`, [alias]);
        if (versionExists.rowCount > 0) throw alreadyExists(alias);
        const inserted = await this.insertVersion(sql, alias, 1, algorithm, pair, false);
        if (!inserted) throw alreadyExists(alias);
        return inserted;
      });
      return toInfo(row);
    });
  }

  ensure(alias: string, algorithm: SigningAlgorithm): Promise<KeyInfo> {
    return this.observe('ensure', () => {
      // Concurrent callers in this process share one attempt, so they do not each generate a key pair.
      let pending = this.ensuring.get(alias);
      if (!pending) {
        pending = this.ensureOnce(alias, algorithm).finally(() => this.ensuring.delete(alias));
        this.ensuring.set(alias, pending);
      }
      return pending.then((info) => {
        if (info.algorithm !== algorithm) {
          throw new AppError(
            'conflict',
            `The key "${alias}" exists with algorithm ${info.algorithm}, not ${algorithm}.`,
          );
        }
        return info;
      });
    });
  }

  sign(alias: string, data: Uint8Array): Promise<Signature> {
    return this.observe('sign', async () => {
      const key = await this.activeKey(alias);
      const signature = await signAsync(key.digest, data, key.signingKey);
      return { kid: key.info.kid, algorithm: key.info.algorithm, signature };
    });
  }

  publicJwk(alias: string): Promise<JWK> {
    return this.observe('public_jwk', async () => ({ ...(await this.activeKey(alias)).publicJwk }));
  }

  publishedJwks(alias: string): Promise<JWK[]> {
    return this.observe('published_jwks', async () => {
      const rows = await this.db.withPlatform((sql) =>
        sql.query<{ public_jwk: JWK; state: string }>(
          `SELECT public_jwk, state FROM kms_keys
            WHERE alias = $1 AND (state = 'active' OR publish_until > $2)
            ORDER BY (state = 'active') DESC, version DESC`,
          [alias, this.clock.now()],
        ),
      );
      if (!rows.rows.some((r) => r.state === 'active')) throw unknownAlias(alias);
      return rows.rows.map((r) => r.public_jwk);
    });
  }

  publicJwkByKid(kid: string): Promise<JWK | null> {
    return this.observe('public_jwk_by_kid', async () => {
      const cached = this.jwkByKid.get(kid);
      if (cached) return { ...cached };
      const rows = await this.db.withPlatform((sql) =>
        sql.query<{ public_jwk: JWK }>(`SELECT public_jwk FROM kms_keys WHERE kid = $1`, [kid]),
      );
      const jwk = rows.rows[0]?.public_jwk;
      if (!jwk) return null;
      this.jwkByKid.set(kid, jwk);
      return { ...jwk };
    });
  }

  rotate(alias: string, options: { retainSeconds?: number } = {}): Promise<KeyInfo> {
    return this.observe('rotate', async () => {
      const retainSeconds = options.retainSeconds ?? DEFAULT_RETAIN_SECONDS;
      if (!Number.isFinite(retainSeconds) || retainSeconds < 0)
        throw new AppError('invalid_request', 'retainSeconds must be a non-negative number.');
      const current = await this.readActive(alias);
      // The key pair is generated before the transaction: RSA generation takes long enough to matter under a lock.
      const pair = await generateSigningKeyPair(parseAlgorithm(current.algorithm));
      const row = await this.db.withPlatform(async (sql) => {
        const active = await lockActive(sql, alias);
        const now = this.clock.now();
        const publishUntil = new Date(now.getTime() + retainSeconds * 1000);
        await sql.query(
          `UPDATE kms_keys SET state = 'retired', retired_at = $3, publish_until = $4 WHERE alias = $1 AND version = $2`,
          [alias, active.version, now, publishUntil],
        );
        const inserted = await this.insertVersion(
          sql,
          alias,
          active.version + 1,
          parseAlgorithm(active.algorithm),
          pair,
          false,
        );
        if (!inserted) throw new AppError('conflict', `The key "${alias}" changed during rotation.`);
        return inserted;
      });
      // Local rotations take effect at once; other replicas follow within the recheck interval.
      this.active.delete(alias);
      return toInfo(row);
    });
  }

  list(): Promise<KeyInfo[]> {
    return this.observe('list', async () => {
      const rows = await this.db.withPlatform((sql) =>
        sql.query<KeyRow>(`SELECT ${ROW_COLUMNS} FROM kms_keys ORDER BY alias, version`),
      );
      return rows.rows.map(toInfo);
    });
  }

  /**
   * Readiness (000: "key management reachable"): one query, and the master key must open an active key. The
   * check of a given kid is remembered, so a healthy provider costs one small SELECT.
   */
  health(): Promise<void> {
    return this.observe('health', async () => {
      const rows = await this.db.withPlatform((sql) =>
        sql.query<KeyRow>(`SELECT ${ROW_COLUMNS} FROM kms_keys WHERE state = 'active' ORDER BY alias LIMIT 1`),
      );
      const row = rows.rows[0];
      if (!row || row.kid === this.healthyKid) return;
      this.unseal(row).fill(0);
      this.healthyKid = row.kid;
    });
  }

  // --- Symmetric keys (symmetric-keys.ts) ----------------------------------------------------------------------

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

  // --- Signing keys: loading and storage ---------------------------------------------------------------------

  private async ensureOnce(alias: string, algorithm: SigningAlgorithm): Promise<KeyInfo> {
    assertAlias(alias);
    assertAlgorithm(algorithm);
    const existing = await this.findActive(alias);
    if (existing) return toInfo(existing);
    const pair = await generateSigningKeyPair(algorithm);
    // ON CONFLICT DO NOTHING and a re-read: when replicas race, every one of them ends with the single winner.
    const row = await this.db.withPlatform(async (sql) => {
      const next = await sql.query<{ version: number }>(
        `SELECT COALESCE(MAX(version), 0) + 1 AS version FROM kms_keys WHERE alias = $1`,
        [alias],
      );
      await this.insertVersion(sql, alias, next.rows[0]!.version, algorithm, pair, true);
      return lockActive(sql, alias, false);
    });
    return toInfo(row);
  }

  /** The cached active version, re-read at most every recheck interval (and after a local rotation). */
  private activeKey(alias: string): Promise<ActiveKey> {
    const cached = this.active.get(alias);
    const now = this.clock.now().getTime();
    if (cached && now >= cached.checkedAt && now - cached.checkedAt < this.recheckMs) return Promise.resolve(cached);
    let pending = this.loading.get(alias);
    if (!pending) {
      pending = this.reloadActive(alias, cached).finally(() => this.loading.delete(alias));
      this.loading.set(alias, pending);
    }
    return pending;
  }

  private async reloadActive(alias: string, cached: ActiveKey | undefined): Promise<ActiveKey> {
    const row = await this.readActive(alias);
    const checkedAt = this.clock.now().getTime();
    if (cached && cached.info.kid === row.kid) {
      cached.checkedAt = checkedAt;
      return cached;
    }
    const loaded = await this.openActive(row, checkedAt);
    this.active.set(alias, loaded);
    return loaded;
  }

  private async openActive(row: KeyRow, checkedAt: number): Promise<ActiveKey> {
    const algorithm = parseAlgorithm(row.algorithm);
    const der = this.unseal(row);
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    } finally {
      der.fill(0);
    }
    // The private key must match the published kid: never sign under a kid whose public key would not verify.
    const derivedKid = await calculateJwkThumbprint(
      createPublicKey(privateKey).export({ format: 'jwk' }) as JWK,
      'sha256',
    );
    if (derivedKid !== row.kid) throw sealedKeyUnusable(row.alias);
    return { info: toInfo(row), publicJwk: row.public_jwk, ...signingParameters(algorithm, privateKey), checkedAt };
  }

  private async readActive(alias: string): Promise<KeyRow> {
    const row = await this.findActive(alias);
    if (!row) throw unknownAlias(alias);
    return row;
  }

  private async findActive(alias: string): Promise<KeyRow | undefined> {
    const rows = await this.db.withPlatform((sql) =>
      sql.query<KeyRow>(`SELECT ${ROW_COLUMNS} FROM kms_keys WHERE alias = $1 AND state = 'active'`, [alias]),
    );
    return rows.rows[0];
  }

  private async insertVersion(
    sql: Sql,
    alias: string,
    version: number,
    algorithm: SigningAlgorithm,
    pair: { publicKey: KeyObject; privateKey: KeyObject },
    ignoreConflict: boolean,
  ): Promise<KeyRow | undefined> {
    const jwk = pair.publicKey.export({ format: 'jwk' }) as JWK;
    // RFC 7638 thumbprint as kid: stable, derived from the key, and the same one a verifier can compute.
    const kid = await calculateJwkThumbprint(jwk, 'sha256');
    const publicJwk: JWK = { ...jwk, kid, alg: algorithm, use: 'sig' };
    const der = pair.privateKey.export({ format: 'der', type: 'pkcs8' });
    let sealed: string;
    try {
      sealed = sealSecret(this.masterKey, der, privateKeyAad(alias, version, kid));
    } finally {
      der.fill(0);
    }
    const rows = await sql.query<KeyRow>(
      `INSERT INTO kms_keys (alias, version, kid, algorithm, public_jwk, encrypted_private, state, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'active', $7)
       ${ignoreConflict ? 'ON CONFLICT DO NOTHING' : ''}
       RETURNING ${ROW_COLUMNS}`,
      [alias, version, kid, algorithm, JSON.stringify(publicJwk), sealed, this.clock.now()],
    );
    return rows.rows[0];
  }

  private unseal(row: KeyRow): Buffer {
    try {
      return openSealed(this.masterKey, row.encrypted_private, privateKeyAad(row.alias, row.version, row.kid));
    } catch (error) {
      throw sealedKeyUnusable(row.alias, error);
    }
  }

  private async observe<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      const value = await fn();
      this.metrics.kmsCalls.inc({ operation, result: 'success' });
      return value;
    } catch (error) {
      this.metrics.kmsCalls.inc({ operation, result: 'failure' });
      throw error;
    }
  }
}

/**
 * Reads and locks the active row. Under READ COMMITTED a row retired by a concurrent rotation drops out of a
 * locking read, and the version that replaced it is visible only to the next statement: so read once more.
 */
async function lockActive(sql: Sql, alias: string, forUpdate = true): Promise<KeyRow> {
  const text = `SELECT ${ROW_COLUMNS} FROM kms_keys WHERE alias = $1 AND state = 'active'${forUpdate ? ' FOR UPDATE' : ''}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    const row = (await sql.query<KeyRow>(text, [alias])).rows[0];
    if (row) return row;
  }
  throw unknownAlias(alias);
}

function toInfo(row: KeyRow): KeyInfo {
  return {
    alias: row.alias,
    version: row.version,
    kid: row.kid,
    algorithm: parseAlgorithm(row.algorithm),
    state: row.state,
    createdAt: toIso(row.created_at),
    publishUntil: row.publish_until === null ? null : toIso(row.publish_until),
  };
}
