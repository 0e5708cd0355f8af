import type { KeyManager, Sql } from '@tessera/platform';

/**
 * Sealing of auxiliary data at rest (000 §2.6: opaque data that may well be personal): envelope encryption under
 * the key manager's A256GCM key `bridge-reconciliation-auxiliary` (a fresh data key per record), with tenant,
 * identity and category as additional authenticated data, so that a record moved to another identity, category
 * or tenant fails to open.
 */
export const AUXILIARY_SEALING_ALIAS = 'bridge-reconciliation-auxiliary';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const aad = (tenantId: string, identityId: string, category: string) =>
  encoder.encode(JSON.stringify(['reconciliation_auxiliary_data', tenantId, identityId, category]));

export class AuxiliarySealer {
  constructor(private readonly keys: KeyManager) {}

  /**
   * Creates the key at start, in a unit of its own: created inside a request's transaction that then rolled back,
   * it would be gone while a cached "ensured" said otherwise.
   */
  async prepare(): Promise<void> {
    await this.keys.ensureSymmetric(AUXILIARY_SEALING_ALIAS, 'A256GCM');
  }

  /** `sql`: the caller's unit of work (the embedded database has one connection; key rows are read through it). */
  async seal(
    canonical: string,
    at: { tenantId: string; identityId: string; category: string },
    sql: Sql,
  ): Promise<string> {
    const sealed = await this.keys.encrypt(
      AUXILIARY_SEALING_ALIAS,
      encoder.encode(canonical),
      aad(at.tenantId, at.identityId, at.category),
      { sql },
    );
    return sealed.ciphertext;
  }

  async open(
    sealed: string,
    at: { tenantId: string; identityId: string; category: string },
    sql: Sql,
  ): Promise<string> {
    return decoder.decode(
      (await this.keys.decrypt(sealed, aad(at.tenantId, at.identityId, at.category), { sql })).plaintext,
    );
  }
}
