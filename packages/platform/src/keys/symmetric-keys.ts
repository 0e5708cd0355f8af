import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { secureRandomBytes } from '../crypto/secure-random.js';
import type { Database, Sql } from '../db/database.js';
import { AppError } from '../errors/app-error.js';
import type { Clock } from '../observability/clock.js';
import { gcmDecrypt, gcmDecryptPacked, gcmEncrypt, gcmEncryptPacked } from './aes-gcm.js';
import { dataKeyAad, DATA_KEY_BYTES, decodeEnvelope, encodeEnvelope, undecryptable } from './envelope.js';
import { assertAlias, sealedKeyUnusable, unknownAlias } from './key-errors.js';
import type {
  DecryptedData,
  EncryptedData,
  Mac,
  SymmetricAlgorithm,
  SymmetricCallOptions,
  SymmetricKeyInfo,
} from './key-manager.js';
import { openSealed, symmetricKeyAad } from './sealing.js';
import {
  assertSymmetricAlgorithm,
  assertVersion,
  findActiveRow,
  findKidRow,
  findVersion,
  insertSymmetricVersion,
  listRows,
  lockVersions,
  parseSymmetricAlgorithm,
  readVersion,
  switchActive,
  toSymmetricInfo,
  type SymmetricRow,
} from './symmetric-key-rows.js';

export { SYMMETRIC_ALGORITHMS } from './symmetric-key-rows.js';

/** An opened version: the secret as a KeyObject, so it stays out of accidental serialisation and logs. */
interface OpenedKey {
  info: SymmetricKeyInfo;
  secret: KeyObject;
}

export interface SymmetricKeysOptions {
  db: Database;
  masterKey: KeyObject;
  clock: Clock;
  /** How long a cached active version is trusted before the database is asked again (a rotation elsewhere). */
  recheckMs: number;
}

/**
 * The symmetric half of the software provider (kms_symmetric_keys). Versions are immutable, so an opened version
 * is cached for good by kid and by (alias, version); only "which version is active" is re-read, at most every
 * recheck interval, as for signing keys. A MAC or an envelope operation on a warm cache touches no database.
 */
export class SymmetricKeys {
  private readonly byKid = new Map<string, OpenedKey>();
  private readonly kidByVersion = new Map<string, string>();
  private readonly active = new Map<string, { kid: string; checkedAt: number }>();

  constructor(private readonly options: SymmetricKeysOptions) {}

  async ensure(
    alias: string,
    algorithm: SymmetricAlgorithm,
    options: SymmetricCallOptions & { exportable?: boolean } = {},
  ): Promise<SymmetricKeyInfo> {
    assertAlias(alias);
    assertSymmetricAlgorithm(algorithm);
    if (options.exportable && algorithm !== 'HS256')
      throw new AppError('invalid_request', 'Only an HS256 key can be exportable.', { field: 'exportable' });
    let row = await this.within(options.sql, (sql) => findActiveRow(sql, alias));
    if (!row) {
      // ON CONFLICT DO NOTHING and a re-read: when transactions race, each ends with the one that committed first.
      await this.within(options.sql, async (sql) => {
        const next = await sql.query<{ version: number }>(
          `SELECT COALESCE(MAX(version), 0) + 1 AS version FROM kms_symmetric_keys WHERE alias = $1`,
          [alias],
        );
        const version = next.rows[0]!.version;
        const exportable = options.exportable ?? false;
        const key = { alias, version, algorithm, exportable, state: 'active' as const };
        await insertSymmetricVersion(sql, this.options.masterKey, key, this.options.clock.now(), true);
      });
      row = await this.within(options.sql, (sql) => findActiveRow(sql, alias));
      if (!row) throw unknownAlias(alias);
    }
    if (row.algorithm !== algorithm)
      throw new AppError('conflict', `The key "${alias}" exists with algorithm ${row.algorithm}, not ${algorithm}.`);
    if (options.exportable !== undefined && row.exportable !== options.exportable)
      throw new AppError('conflict', `The key "${alias}" exists with another exportability.`);
    return toSymmetricInfo(row);
  }

  async hmac(alias: string, data: Uint8Array, options: SymmetricCallOptions = {}): Promise<Mac> {
    return mac(await this.activeKey(alias, options.sql), data);
  }

  async hmacWithVersion(
    alias: string,
    version: number,
    data: Uint8Array,
    options: SymmetricCallOptions = {},
  ): Promise<Mac> {
    assertVersion(version);
    return mac(await this.versionKey(alias, version, options.sql), data);
  }

  async encrypt(
    alias: string,
    plaintext: Uint8Array,
    aad: Uint8Array,
    options: SymmetricCallOptions & { version?: number } = {},
  ): Promise<EncryptedData> {
    const kek = await this.targetKey(alias, options.version, options.sql);
    requireAlgorithm(kek, 'A256GCM');
    const dataKey = secureRandomBytes(DATA_KEY_BYTES);
    try {
      const data = gcmEncrypt(dataKey, plaintext, aad);
      const wrappedKey = gcmEncryptPacked(kek.secret, dataKey, dataKeyAad(kek.info.kid));
      return envelopeOf(kek, encodeEnvelope({ kid: kek.info.kid, wrappedKey, ...data }));
    } finally {
      dataKey.fill(0);
    }
  }

  async decrypt(ciphertext: string, aad: Uint8Array, options: SymmetricCallOptions = {}): Promise<DecryptedData> {
    const envelope = decodeEnvelope(ciphertext);
    const kek = await this.kidKey(envelope.kid, options.sql);
    const dataKey = unwrap(kek, envelope.wrappedKey);
    try {
      const plaintext = gcmDecrypt(dataKey, envelope, aad);
      return { alias: kek.info.alias, version: kek.info.version, kid: kek.info.kid, plaintext };
    } catch (error) {
      throw undecryptable(error);
    } finally {
      dataKey.fill(0);
    }
  }

  async rewrap(ciphertext: string, options: SymmetricCallOptions & { version?: number } = {}): Promise<EncryptedData> {
    const envelope = decodeEnvelope(ciphertext);
    const source = await this.kidKey(envelope.kid, options.sql);
    const target = await this.targetKey(source.info.alias, options.version, options.sql);
    const dataKey = unwrap(source, envelope.wrappedKey);
    try {
      const wrappedKey = gcmEncryptPacked(target.secret, dataKey, dataKeyAad(target.info.kid));
      return envelopeOf(target, encodeEnvelope({ ...envelope, kid: target.info.kid, wrappedKey }));
    } finally {
      dataKey.fill(0);
    }
  }

  addVersion(alias: string): Promise<SymmetricKeyInfo> {
    return this.options.db.withPlatform(async (sql) => {
      const latest = (await lockVersions(sql, alias)).at(-1)!;
      await this.insertAfter(sql, latest);
      return toSymmetricInfo(await readVersion(sql, alias, latest.version + 1));
    });
  }

  async activate(alias: string, version: number): Promise<SymmetricKeyInfo> {
    assertVersion(version);
    const info = await this.options.db.withPlatform(async (sql) => {
      const target = findVersion(await lockVersions(sql, alias), alias, version);
      if (target.state !== 'active') await switchActive(sql, alias, version, this.options.clock.now());
      return toSymmetricInfo(await readVersion(sql, alias, version));
    });
    // Local changes take effect at once; other replicas follow within the recheck interval.
    this.active.delete(alias);
    return info;
  }

  retire(alias: string, version: number): Promise<SymmetricKeyInfo> {
    assertVersion(version);
    return this.options.db.withPlatform(async (sql) => {
      const target = findVersion(await lockVersions(sql, alias), alias, version);
      if (target.state === 'active')
        throw new AppError('conflict', `Version ${version} of "${alias}" is active; activate another version first.`);
      if (target.state === 'pending') {
        await sql.query(
          `UPDATE kms_symmetric_keys SET state = 'retired', retired_at = $3 WHERE alias = $1 AND version = $2`,
          [alias, version, this.options.clock.now()],
        );
      }
      return toSymmetricInfo(await readVersion(sql, alias, version));
    });
  }

  async rotate(alias: string): Promise<SymmetricKeyInfo> {
    const info = await this.options.db.withPlatform(async (sql) => {
      const latest = (await lockVersions(sql, alias)).at(-1)!;
      await this.insertAfter(sql, latest);
      await switchActive(sql, alias, latest.version + 1, this.options.clock.now());
      return toSymmetricInfo(await readVersion(sql, alias, latest.version + 1));
    });
    this.active.delete(alias);
    return info;
  }

  async list(alias: string): Promise<SymmetricKeyInfo[]> {
    return (await this.options.db.withPlatform((sql) => listRows(sql, alias))).map(toSymmetricInfo);
  }

  async export(alias: string, version?: number): Promise<{ info: SymmetricKeyInfo; key: Uint8Array }> {
    if (version !== undefined) assertVersion(version);
    const row = await this.options.db.withPlatform(async (sql) =>
      version === undefined ? findActiveRow(sql, alias) : readVersion(sql, alias, version),
    );
    if (!row) throw unknownAlias(alias);
    if (!row.exportable) throw new AppError('policy_denied', `The key "${alias}" is not exportable.`);
    return { info: toSymmetricInfo(row), key: new Uint8Array(this.unseal(row)) };
  }

  private async activeKey(alias: string, sql: Sql | undefined): Promise<OpenedKey> {
    const cached = this.active.get(alias);
    const now = this.options.clock.now().getTime();
    if (cached && now >= cached.checkedAt && now - cached.checkedAt < this.options.recheckMs) {
      const key = this.byKid.get(cached.kid);
      if (key) return key;
    }
    const row = await this.within(sql, (s) => findActiveRow(s, alias));
    if (!row) throw unknownAlias(alias);
    const key = this.open(row);
    if (!row.own) this.active.set(alias, { kid: row.kid, checkedAt: this.options.clock.now().getTime() });
    return key;
  }

  private async versionKey(alias: string, version: number, sql: Sql | undefined): Promise<OpenedKey> {
    const kid = this.kidByVersion.get(versionSlot(alias, version));
    const cached = kid === undefined ? undefined : this.byKid.get(kid);
    if (cached) return cached;
    return this.open(await this.within(sql, (s) => readVersion(s, alias, version)));
  }

  private async kidKey(kid: string, sql: Sql | undefined): Promise<OpenedKey> {
    const cached = this.byKid.get(kid);
    if (cached) return cached;
    const row = await this.within(sql, (s) => findKidRow(s, kid));
    if (!row) throw undecryptable();
    return this.open(row);
  }

  private targetKey(alias: string, version: number | undefined, sql: Sql | undefined): Promise<OpenedKey> {
    if (version === undefined) return this.activeKey(alias, sql);
    assertVersion(version);
    return this.versionKey(alias, version, sql);
  }

  private open(row: SymmetricRow): OpenedKey {
    const cached = this.byKid.get(row.kid);
    if (cached) return cached;
    const secret = this.unseal(row);
    const key = { info: toSymmetricInfo(row), secret: createSecretKey(secret) };
    secret.fill(0);
    // A row this very transaction wrote may still roll back: use it, but never remember it.
    if (!row.own) {
      this.byKid.set(row.kid, key);
      this.kidByVersion.set(versionSlot(row.alias, row.version), row.kid);
    }
    return key;
  }

  private unseal(row: SymmetricRow): Buffer {
    try {
      const aad = symmetricKeyAad(row.alias, row.version, row.kid, row.algorithm, row.exportable);
      return openSealed(this.options.masterKey, row.encrypted_secret, aad);
    } catch (error) {
      throw sealedKeyUnusable(row.alias, error);
    }
  }

  /** A pending version after `latest`, of the same algorithm and exportability. */
  private insertAfter(sql: Sql, latest: SymmetricRow): Promise<void> {
    const key = {
      alias: latest.alias,
      version: latest.version + 1,
      algorithm: parseSymmetricAlgorithm(latest.algorithm),
      exportable: latest.exportable,
      state: 'pending' as const,
    };
    return insertSymmetricVersion(sql, this.options.masterKey, key, this.options.clock.now(), false);
  }

  private within<T>(sql: Sql | undefined, fn: (sql: Sql) => Promise<T>): Promise<T> {
    return sql ? fn(sql) : this.options.db.withPlatform(fn);
  }
}

function mac(key: OpenedKey, data: Uint8Array): Mac {
  requireAlgorithm(key, 'HS256');
  return { kid: key.info.kid, version: key.info.version, mac: createHmac('sha256', key.secret).update(data).digest() };
}

function unwrap(kek: OpenedKey, wrappedKey: Buffer): Buffer {
  requireAlgorithm(kek, 'A256GCM');
  try {
    return gcmDecryptPacked(kek.secret, wrappedKey, dataKeyAad(kek.info.kid));
  } catch (error) {
    throw undecryptable(error);
  }
}

function requireAlgorithm(key: OpenedKey, algorithm: SymmetricAlgorithm): void {
  if (key.info.algorithm !== algorithm)
    throw new AppError('invalid_request', `The key "${key.info.alias}" is not an ${algorithm} key.`, {
      field: 'alias',
    });
}

const envelopeOf = (kek: OpenedKey, ciphertext: string): EncryptedData => ({
  kid: kek.info.kid,
  version: kek.info.version,
  ciphertext,
});

const versionSlot = (alias: string, version: number) => `${alias}\u0000${version}`;
