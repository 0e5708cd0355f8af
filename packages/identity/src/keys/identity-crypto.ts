import { AppError, isAppError, type KeyManager } from '@tessera/platform';
import type { KeyVersions } from '../domain/key-migration.js';
import { identityDekAlias, identityHmacAlias } from '../domain/key-aliases.js';
import type { TenantUnit } from '../identity-store.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The identity context's use of the key manager: MACs and envelopes under explicit versions of the tenant's two
 * keys. Every call passes the caller's unit of work, so that a cold key cache is filled through the caller's
 * transaction (see `SymmetricCallOptions.sql`); warm, no call reaches the database.
 */
export class IdentityCrypto {
  constructor(private readonly keys: KeyManager) {}

  /** Creates the tenant's keys on first use (inside the caller's transaction); answers their active versions. */
  async provision(unit: TenantUnit): Promise<KeyVersions> {
    const dek = await this.keys.ensureSymmetric(identityDekAlias(unit.tenantId), 'A256GCM', { sql: unit.sql });
    const hmac = await this.keys.ensureSymmetric(identityHmacAlias(unit.tenantId), 'HS256', {
      sql: unit.sql,
      exportable: true,
    });
    return { dek: dek.version, hmac: hmac.version };
  }

  /** base64url, no padding, of HMAC-SHA256 of the value's UTF-8 bytes: the lookup hash of 000 §4.3. */
  async mac(unit: TenantUnit, version: number, value: string): Promise<string> {
    const { mac } = await this.keys.hmacWithVersion(identityHmacAlias(unit.tenantId), version, encoder.encode(value), {
      sql: unit.sql,
    });
    return Buffer.from(mac).toString('base64url');
  }

  async seal(unit: TenantUnit, version: number, plaintext: string, aad: Uint8Array): Promise<string> {
    const sealed = await this.keys.encrypt(identityDekAlias(unit.tenantId), encoder.encode(plaintext), aad, {
      sql: unit.sql,
      version,
    });
    return sealed.ciphertext;
  }

  /**
   * Opens a stored value. A value that does not open (tampered, or moved from another row) is the server's fault,
   * never the caller's: a generic 500 (UndecryptableRecordError), with the cause kept for the operator's log. Other
   * failures (database unavailable, master key wrong) pass through as they are.
   */
  async open(unit: TenantUnit, sealed: string, aad: Uint8Array): Promise<string> {
    let plaintext: Uint8Array;
    try {
      plaintext = (await this.keys.decrypt(sealed, aad, { sql: unit.sql })).plaintext;
    } catch (cause) {
      if (isAppError(cause) && cause.code === 'invalid_request') throw new UndecryptableRecordError(cause);
      throw cause;
    }
    try {
      return decoder.decode(plaintext);
    } catch (cause) {
      throw new UndecryptableRecordError(cause);
    }
  }
}

/** A stored value that does not open: counted as a failed record by a key migration, a 500 anywhere else. */
export class UndecryptableRecordError extends AppError {
  constructor(cause: unknown) {
    super('server_error', 'A stored identity record cannot be decrypted.', { cause });
  }
}
