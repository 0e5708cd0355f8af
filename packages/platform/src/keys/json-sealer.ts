import type { Sql } from '../db/database.js';
import { AppError } from '../errors/app-error.js';
import type { KeyManager } from './key-manager.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Personal data and secrets at rest, sealed through the key manager's envelope encryption (A256GCM under the
 * key-encryption key `alias`, a fresh data key per value), with additional authenticated data that names the row
 * and field (tenant, table, id, column): a sealed value moved to another row or tenant fails to open. Used for the
 * bridge's session secrets and the token service's grant claims and upstream verifiers.
 */
export class JsonSealer {
  private ensured: Promise<unknown> | null = null;

  constructor(
    private readonly keys: KeyManager,
    private readonly alias: string,
  ) {}

  /**
   * `sql`: the caller's open unit of work, when there is one (the embedded database has one connection: the key
   * manager must read its key rows through it).
   */
  async sealJson(value: unknown, aad: string, sql?: Sql): Promise<string> {
    if (!this.ensured)
      this.ensured = this.keys.ensureSymmetric(this.alias, 'A256GCM', { sql }).catch((error: unknown) => {
        this.ensured = null;
        throw error;
      });
    await this.ensured;
    const plaintext = encoder.encode(JSON.stringify(value));
    try {
      return (await this.keys.encrypt(this.alias, plaintext, encoder.encode(aad), { sql })).ciphertext;
    } catch (error) {
      // The first use made the key inside another unit of work that has not committed (or rolled back): this unit
      // does not see it yet. Ensuring it here waits for that unit (the key's unique row) or makes the key anew.
      if (!(error instanceof AppError && error.code === 'not_found')) throw error;
      await this.keys.ensureSymmetric(this.alias, 'A256GCM', { sql });
      return (await this.keys.encrypt(this.alias, plaintext, encoder.encode(aad), { sql })).ciphertext;
    }
  }

  async openJson<T>(sealed: string, aad: string, sql?: Sql): Promise<T> {
    return JSON.parse(decoder.decode((await this.keys.decrypt(sealed, encoder.encode(aad), { sql })).plaintext)) as T;
  }
}

/** Additional authenticated data of a sealed column value: the table, the tenant, the row and the column. */
export const rowAad = (table: string, tenantId: string, rowId: string, column: string) =>
  JSON.stringify([table, tenantId, rowId, column]);
