import { JsonSealer, rowAad, type KeyManager, type Sql } from '@tessera/platform';
import type { EncryptionMode } from '../domain/encryption-mode.js';

/**
 * Seals attribute and connector field values at rest (001 §4.2: the attribute bag is encrypted at rest). The
 * platform's envelope encryption under a key-encryption key per tenant (`issuance.bag.<tenant>`), each value bound
 * to its table, tenant, row and column: a sealed value copied to another row or tenant fails to open.
 */
export class BagSealer {
  private readonly sealers = new Map<string, JsonSealer>();

  constructor(private readonly keys: KeyManager) {}

  private sealer(tenantId: string): JsonSealer {
    let sealer = this.sealers.get(tenantId);
    if (!sealer) {
      sealer = new JsonSealer(this.keys, `issuance.bag.${tenantId}`);
      this.sealers.set(tenantId, sealer);
    }
    return sealer;
  }

  async seal(mode: EncryptionMode, at: BagCell, value: unknown, sql?: Sql): Promise<string> {
    if (mode === 'NONE') return JSON.stringify(value);
    return this.sealer(at.tenantId).sealJson(value, aadOf(at), sql);
  }

  async open(mode: EncryptionMode, at: BagCell, stored: string, sql: Sql): Promise<unknown> {
    if (mode === 'NONE') return JSON.parse(stored) as unknown;
    return this.sealer(at.tenantId).openJson(stored, aadOf(at), sql);
  }
}

export interface BagCell {
  tenantId: string;
  table: 'issuance_session_attributes' | 'issuance_session_connector_fields';
  rowId: string;
}

const aadOf = (at: BagCell) => rowAad(at.table, at.tenantId, at.rowId, 'value');
