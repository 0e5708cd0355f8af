import { decodeProtectedHeader } from 'jose';
import { assertTenantId, type Database } from '../db/database.js';
import type { KeyManager } from '../keys/key-manager.js';
import { signJwt } from '../keys/sign-jwt.js';
import type { Clock } from '../observability/clock.js';
import type { Logger } from '../observability/logger.js';
import type { AuditEvent } from './audit-log.js';
import type { CheckpointRow } from './audit-rows.js';

export interface AuditSigningOptions {
  enabled: boolean;
  /** A checkpoint is signed each time a tenant's chain reaches a multiple of this. */
  checkpointEveryEvents: number;
}

export interface AuditCheckpoint {
  tenantId: string;
  seq: number;
  hash: string;
  kid: string;
  /** Compact JWS (ES256) over {tenant, seq, hash, iat}. */
  signature: string;
}

export const AUDIT_SIGNING_ALGORITHM = 'ES256';
export const auditKeyAlias = (tenantId: string) => `audit:${tenantId}`;
/** JWS `typ` of checkpoints, so that no signature made for another purpose passes as one. */
export const CHECKPOINT_TYPE = 'audit-checkpoint+jwt';

const INSERT_CHECKPOINTS = `
INSERT INTO audit_checkpoints (seq, hash, signature, kid)
SELECT c.seq, c.hash, c.signature, c.kid
  FROM jsonb_to_recordset($1::text::jsonb) AS c(seq bigint, hash text, signature text, kid text)
ON CONFLICT (tenant_id, seq) DO NOTHING`;

/**
 * Signed checkpoints of the tenants' chains (001 §6), with the tenant's audit key (`audit:<tenant>`, ES256): every
 * `checkpointEveryEvents` events when `audit.events.signing.enabled`, and on demand.
 */
export class AuditCheckpoints {
  private readonly keysEnsured = new Map<string, Promise<unknown>>();

  constructor(
    private readonly options: {
      db: Database;
      keys: KeyManager;
      clock: Clock;
      logger: Logger;
      signing: AuditSigningOptions;
    },
  ) {}

  /** Signs the current head of a tenant's chain now (also when automatic checkpoints are off); null for an empty chain. */
  async checkpoint(tenantId: string): Promise<AuditCheckpoint | null> {
    assertTenantId(tenantId);
    const head = await this.options.db.withTenant(tenantId, (sql) =>
      sql.query<{ seq: number | string; hash: string }>('SELECT seq, hash FROM audit_heads'),
    );
    const row = head.rows[0];
    if (!row || Number(row.seq) === 0) return null;
    const [signed] = await this.sign(tenantId, [{ seq: Number(row.seq), hash: row.hash }]);
    const stored = await this.options.db.withTenant(tenantId, async (sql) => {
      await sql.query(INSERT_CHECKPOINTS, [JSON.stringify([signed])]);
      return sql.query<CheckpointRow>('SELECT seq, hash, signature, kid FROM audit_checkpoints WHERE seq = $1', [
        signed!.seq,
      ]);
    });
    const cp = stored.rows[0]!;
    return { tenantId, seq: Number(cp.seq), hash: cp.hash, kid: cp.kid, signature: cp.signature };
  }

  /**
   * The checkpoints the just written events make due, when signing is enabled. Checkpoints are signed after their
   * events commit, in a transaction of their own, because signing may read the key store: inside the append
   * transaction that read would wait for a second connection (PGlite has one, and a busy pool may have none free)
   * while holding the chain head. A checkpoint only attests a prefix of an append-only chain, so writing it a moment
   * later attests the same thing; one lost to a crash is made up by the next multiple, or by `checkpoint()`. A
   * failure is logged and never fails the appends, which are durable.
   */
  async writeDue(tenantId: string, written: AuditEvent[]): Promise<void> {
    if (!this.options.signing.enabled) return;
    const every = this.options.signing.checkpointEveryEvents;
    const due = written.filter((e) => e.seq % every === 0).map((e) => ({ seq: e.seq, hash: e.hash }));
    if (due.length === 0) return;
    try {
      const signed = await this.sign(tenantId, due);
      await this.options.db.withTenant(tenantId, (sql) => sql.query(INSERT_CHECKPOINTS, [JSON.stringify(signed)]));
    } catch (error) {
      this.options.logger.error(
        { err: error, tenant_id: tenantId, seq: due[due.length - 1]!.seq },
        'audit checkpoint failed',
      );
    }
  }

  /** The tenant-scoped audit key (001 §6) is created on first use. */
  private async sign(tenantId: string, heads: { seq: number; hash: string }[]): Promise<AuditCheckpoint[]> {
    const alias = auditKeyAlias(tenantId);
    let ensured = this.keysEnsured.get(alias);
    if (!ensured) {
      ensured = this.options.keys.ensure(alias, AUDIT_SIGNING_ALGORITHM);
      this.keysEnsured.set(alias, ensured);
      ensured.catch(() => this.keysEnsured.delete(alias));
    }
    await ensured;
    const iat = Math.floor(this.options.clock.now().getTime() / 1000);
    return Promise.all(
      heads.map(async ({ seq, hash }) => {
        const signature = await signJwt(
          this.options.keys,
          alias,
          { tenant: tenantId, seq, hash, iat },
          { typ: CHECKPOINT_TYPE },
        );
        const { kid } = decodeProtectedHeader(signature);
        return { tenantId, seq, hash, kid: String(kid), signature };
      }),
    );
  }
}
