import type { KeyManager, Sql } from '@tessera/platform';

/**
 * Sealing of session secrets at rest (the response-decryption private key, the presented claims, the completion
 * result) through the key manager's envelope encryption (A256GCM under the key-encryption key `alias`, a fresh data
 * key per value), with the tenant, the session and the field as additional authenticated data: a sealed value
 * moved to another session or tenant fails to open. No plaintext secret or claim reaches a column.
 */
export const SESSION_SEALING_ALIAS = 'bridge-session-secrets';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class Sealer {
  private ensured: Promise<unknown> | null = null;

  constructor(
    private readonly keys: KeyManager,
    private readonly alias = SESSION_SEALING_ALIAS,
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
    return (await this.keys.encrypt(this.alias, encoder.encode(JSON.stringify(value)), encoder.encode(aad), { sql }))
      .ciphertext;
  }

  async openJson<T>(sealed: string, aad: string, sql?: Sql): Promise<T> {
    return JSON.parse(decoder.decode((await this.keys.decrypt(sealed, encoder.encode(aad), { sql })).plaintext)) as T;
  }
}

/** Additional authenticated data of a sealed session field. */
export const sessionAad = (tenantId: string, sessionId: string, field: 'response_key' | 'presented' | 'result') =>
  JSON.stringify(['bridge_sessions', tenantId, sessionId, field]);
