import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { JoinedUnit } from '../commands/command.js';
import type { Database, Sql } from '../db/database.js';
import { AppError } from '../errors/app-error.js';
import type { Clock } from '../observability/clock.js';
import { alreadyExists, assertAlias, sealedKeyUnusable, unknownAlias } from './key-errors.js';
import type { KeyInfo, Signature, SigningAlgorithm } from './key-manager.js';
import { openSealed, privateKeyAad } from './sealing.js';
import {
  assertAlgorithm,
  generateSigningKeyPair,
  parseAlgorithm,
  signFor,
  signingParameters,
  type SigningParameters,
} from './signing-algorithms.js';
import { insertVersion, lockActive, ROW_COLUMNS, toInfo, type KeyRow } from './signing-key-rows.js';

/** A retired version stays published one day plus an hour of clock skew and in-flight tokens. */
export const DEFAULT_RETAIN_SECONDS = 86_400 + 3_600;

/** The decrypted active version of an alias, held in memory so that signing needs no database round trip. */
export interface ActiveKey extends SigningParameters {
  readonly info: KeyInfo;
  /** Frozen: handed out as it is by the ready path (ActiveSigningKey), copied by publicJwk. */
  readonly publicJwk: Readonly<JWK>;
  checkedAt: number;
}

export interface SigningKeysOptions {
  db: Database;
  masterKey: KeyObject;
  clock: Clock;
  /** How long a cached active version is used before the database is asked again (a rotation elsewhere). */
  recheckMs: number;
}

/**
 * The signing half of the software provider (issue 2 §11; kms_keys). The active version of each alias is kept
 * decrypted in memory and re-checked at most every recheck interval, so that a rotation by another replica is
 * followed; public keys by kid are cached for good (a kid names one immutable key).
 */
export class SigningKeys {
  private readonly active = new Map<string, ActiveKey>();
  private readonly loading = new Map<string, Promise<ActiveKey>>();
  private readonly ensuring = new Map<string, Promise<KeyInfo>>();
  private readonly jwkByKid = new Map<string, JWK>();
  private healthyKid: string | null = null;

  constructor(private readonly options: SigningKeysOptions) {}

  async create(alias: string, algorithm: SigningAlgorithm): Promise<KeyInfo> {
    assertAlias(alias);
    assertAlgorithm(algorithm);
    const pair = await generateSigningKeyPair(algorithm);
    const row = await this.options.db.withPlatform(async (sql) => {
      const versionExists = await sql.query(`SELECT 1 FROM kms_keys WHERE alias = $1 LIMIT 1`, [alias]);
      if (versionExists.rowCount > 0) throw alreadyExists(alias);
      const inserted = await insertVersion(sql, this.options.masterKey, this.version(alias, 1, algorithm, pair), false);
      if (!inserted) throw alreadyExists(alias);
      return inserted;
    });
    return toInfo(row);
  }

  async ensure(alias: string, algorithm: SigningAlgorithm): Promise<KeyInfo> {
    // Concurrent callers in this process share one attempt, so they do not each generate a key pair.
    let pending = this.ensuring.get(alias);
    if (!pending) {
      pending = this.ensureOnce(alias, algorithm).finally(() => this.ensuring.delete(alias));
      this.ensuring.set(alias, pending);
    }
    const info = await pending;
    if (info.algorithm !== algorithm)
      throw new AppError('conflict', `The key "${alias}" exists with algorithm ${info.algorithm}, not ${algorithm}.`);
    return info;
  }

  async sign(alias: string, data: Uint8Array): Promise<Signature> {
    return this.signWith(await this.activeKey(alias), data);
  }

  /** A signature by the version `key` holds, whichever version is active by now. */
  async signWith(key: ActiveKey, data: Uint8Array): Promise<Signature> {
    const { kid, algorithm } = key.info;
    return { kid, algorithm, signature: await signFor(algorithm, key, data) };
  }

  async publicJwk(alias: string): Promise<JWK> {
    return { ...(await this.activeKey(alias)).publicJwk };
  }

  async publishedJwks(alias: string): Promise<JWK[]> {
    const rows = await this.options.db.withPlatform((sql) =>
      sql.query<{ public_jwk: JWK; state: string }>(
        `SELECT public_jwk, state FROM kms_keys
          WHERE alias = $1 AND (state = 'active' OR publish_until > $2)
          ORDER BY (state = 'active') DESC, version DESC`,
        [alias, this.options.clock.now()],
      ),
    );
    if (!rows.rows.some((r) => r.state === 'active')) throw unknownAlias(alias);
    return rows.rows.map((r) => r.public_jwk);
  }

  async publicJwkByKid(kid: string): Promise<JWK | null> {
    const cached = this.jwkByKid.get(kid);
    if (cached) return { ...cached };
    const rows = await this.options.db.withPlatform((sql) =>
      sql.query<{ public_jwk: JWK }>(`SELECT public_jwk FROM kms_keys WHERE kid = $1`, [kid]),
    );
    const jwk = rows.rows[0]?.public_jwk;
    if (!jwk) return null;
    this.jwkByKid.set(kid, jwk);
    return { ...jwk };
  }

  async rotate(
    alias: string,
    options: { retainSeconds?: number; unit?: JoinedUnit | undefined } = {},
  ): Promise<KeyInfo> {
    const retainSeconds = options.retainSeconds ?? DEFAULT_RETAIN_SECONDS;
    if (!Number.isFinite(retainSeconds) || retainSeconds < 0)
      throw new AppError('invalid_request', 'retainSeconds must be a non-negative number.');
    // Local rotations take effect at once (in a caller's unit: once it has committed); other replicas follow within
    // the recheck interval.
    const forget = async () => void this.active.delete(alias);
    const { unit } = options;
    if (unit) {
      // kms_keys is no tenant's table: the caller's tenant unit writes it as a platform unit does. The key pair is
      // made under the row lock there (nothing may be read outside the unit: on the embedded engine it holds the one
      // connection); a rotation is an operator's rare act, so the wait it causes is short and rare.
      const row = await this.rotateIn(unit.sql, alias, retainSeconds, null);
      unit.afterCommit(forget);
      return toInfo(row);
    }
    const current = await this.readActive(alias);
    // The key pair is generated before the transaction: RSA generation takes long enough to matter under a lock.
    const pair = await generateSigningKeyPair(parseAlgorithm(current.algorithm));
    const row = await this.options.db.withPlatform((sql) => this.rotateIn(sql, alias, retainSeconds, pair));
    await forget();
    return toInfo(row);
  }

  /** Retires the active version and inserts the next one, in `sql`'s transaction. */
  private async rotateIn(
    sql: Sql,
    alias: string,
    retainSeconds: number,
    pair: Awaited<ReturnType<typeof generateSigningKeyPair>> | null,
  ): Promise<KeyRow> {
    const active = await lockActive(sql, alias);
    const algorithm = parseAlgorithm(active.algorithm);
    const keyPair = pair ?? (await generateSigningKeyPair(algorithm));
    const now = this.options.clock.now();
    const publishUntil = new Date(now.getTime() + retainSeconds * 1000);
    await sql.query(
      `UPDATE kms_keys SET state = 'retired', retired_at = $3, publish_until = $4 WHERE alias = $1 AND version = $2`,
      [alias, active.version, now, publishUntil],
    );
    const inserted = await insertVersion(
      sql,
      this.options.masterKey,
      this.version(alias, active.version + 1, algorithm, keyPair),
      false,
    );
    if (!inserted) throw new AppError('conflict', `The key "${alias}" changed during rotation.`);
    return inserted;
  }

  async list(): Promise<KeyInfo[]> {
    const rows = await this.options.db.withPlatform((sql) =>
      sql.query<KeyRow>(`SELECT ${ROW_COLUMNS} FROM kms_keys ORDER BY alias, version`),
    );
    return rows.rows.map(toInfo);
  }

  /**
   * Readiness (000: "key management reachable"): one query, and the master key must open an active key. The
   * check of a given kid is remembered, so a healthy provider costs one small SELECT.
   */
  async health(): Promise<void> {
    const rows = await this.options.db.withPlatform((sql) =>
      sql.query<KeyRow>(`SELECT ${ROW_COLUMNS} FROM kms_keys WHERE state = 'active' ORDER BY alias LIMIT 1`),
    );
    const row = rows.rows[0];
    if (!row || row.kid === this.healthyKid) return;
    this.unseal(row).fill(0);
    this.healthyKid = row.kid;
  }

  private async ensureOnce(alias: string, algorithm: SigningAlgorithm): Promise<KeyInfo> {
    assertAlias(alias);
    assertAlgorithm(algorithm);
    const existing = await this.findActive(alias);
    if (existing) return toInfo(existing);
    const pair = await generateSigningKeyPair(algorithm);
    // ON CONFLICT DO NOTHING and a re-read: when replicas race, every one of them ends with the single winner.
    const row = await this.options.db.withPlatform(async (sql) => {
      const next = await sql.query<{ version: number }>(
        `SELECT COALESCE(MAX(version), 0) + 1 AS version FROM kms_keys WHERE alias = $1`,
        [alias],
      );
      await insertVersion(
        sql,
        this.options.masterKey,
        this.version(alias, next.rows[0]!.version, algorithm, pair),
        true,
      );
      return lockActive(sql, alias, false);
    });
    return toInfo(row);
  }

  /** The cached active version, re-read at most every recheck interval (and after a local rotation). */
  activeKey(alias: string): Promise<ActiveKey> {
    const cached = this.active.get(alias);
    if (cached && this.isFresh(cached)) return Promise.resolve(cached);
    let pending = this.loading.get(alias);
    if (!pending) {
      pending = this.reloadActive(alias, cached).finally(() => this.loading.delete(alias));
      this.loading.set(alias, pending);
    }
    return pending;
  }

  /** The cached active version when it needs no re-read now; undefined when activeKey would go to the database. */
  readyActiveKey(alias: string): ActiveKey | undefined {
    const cached = this.active.get(alias);
    return cached && this.isFresh(cached) ? cached : undefined;
  }

  private isFresh(key: ActiveKey): boolean {
    const now = this.options.clock.now().getTime();
    return now >= key.checkedAt && now - key.checkedAt < this.options.recheckMs;
  }

  private async reloadActive(alias: string, cached: ActiveKey | undefined): Promise<ActiveKey> {
    const row = await this.readActive(alias);
    const checkedAt = this.options.clock.now().getTime();
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
    return {
      info: toInfo(row),
      publicJwk: Object.freeze({ ...row.public_jwk }),
      ...signingParameters(algorithm, privateKey),
      checkedAt,
    };
  }

  private async readActive(alias: string): Promise<KeyRow> {
    const row = await this.findActive(alias);
    if (!row) throw unknownAlias(alias);
    return row;
  }

  private async findActive(alias: string): Promise<KeyRow | undefined> {
    const rows = await this.options.db.withPlatform((sql) =>
      sql.query<KeyRow>(`SELECT ${ROW_COLUMNS} FROM kms_keys WHERE alias = $1 AND state = 'active'`, [alias]),
    );
    return rows.rows[0];
  }

  private version(
    alias: string,
    version: number,
    algorithm: SigningAlgorithm,
    pair: { publicKey: KeyObject; privateKey: KeyObject },
  ) {
    return { alias, version, algorithm, pair, now: this.options.clock.now() };
  }

  private unseal(row: KeyRow): Buffer {
    try {
      return openSealed(this.options.masterKey, row.encrypted_private, privateKeyAad(row.alias, row.version, row.kid));
    } catch (error) {
      throw sealedKeyUnusable(row.alias, error);
    }
  }
}
