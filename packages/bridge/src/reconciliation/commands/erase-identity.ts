import { defineCommand, StagedAuditEvents } from '@tessera/platform';
import { RECONCILIATION_SCOPES } from '../config.js';
import type { Projection } from '../domain/projection.js';
import type { ReconciliationServices } from '../services.js';
import { auxiliaryStore } from '../storage/auxiliary-store.js';
import { erasureStore } from '../storage/erasure-store.js';

export const ERASE_IDENTITY = 'reconciliation-api.identities.erase';

export interface ErasureCounts {
  existed: boolean;
  auxiliaryRecords: number;
  sessions: number;
  tokenGrants: number;
  refreshTokens: number;
}

/**
 * DELETE /{internalIdentityId} (000 §3.3, §4.3): irreversibly removes everything of the identity in ONE unit of
 * work: auxiliary data of every category, the bridge sessions resolved to it, its token families at the token
 * service (through the token service's own revocation, subject-grants-port.ts: revoked, refresh tokens and codes
 * deleted, subject and claims cleared), then the identity store's erase (identity match records, HMAC index rows,
 * wallet and federation bindings). Idempotent: 204 again and again.
 * Audited as `gdpr_erasure` with the client id, the identity id and the time, nothing personal (000 §4.3, §6); the
 * event is staged in the erasure's unit of work with the token service's event of its revocation, so that an erasure
 * is never committed without them and an erasure that fails has changed nothing in either context (issue 13 §7).
 */
export const eraseIdentity = (s: ReconciliationServices) =>
  defineCommand<{ projection: Projection; internalIdentityId: string }, ErasureCounts>({
    id: ERASE_IDENTITY,
    access: 'write',
    requiredScope: RECONCILIATION_SCOPES.delete,
    audit: 'self',
    async run(ctx, { projection, internalIdentityId }) {
      const now = s.clock.now();
      const events = new StagedAuditEvents(s.platform.audit);
      const counts = await s.platform.db.withTenant(ctx.tenantId, async (sql): Promise<ErasureCounts> => {
        const unit = { tenantId: ctx.tenantId, sql };
        const existed = (await s.identities.get(unit, internalIdentityId)) !== null;
        const auxiliaryRecords = await auxiliaryStore.deleteAll(sql, internalIdentityId);
        const sessions = await erasureStore.deleteResolvedSessions(sql, internalIdentityId);
        const tokens = s.revokeSubjectGrants
          ? await s.revokeSubjectGrants({ ctx, sql, events }, { subject: internalIdentityId, reason: 'gdpr_erasure' })
          : { grants: 0, refreshTokens: 0 };
        await s.identities.erase(unit, internalIdentityId);
        const erased = {
          existed,
          auxiliaryRecords,
          sessions,
          tokenGrants: tokens.grants,
          refreshTokens: tokens.refreshTokens,
        };
        await events.stage(sql, {
          tenantId: ctx.tenantId,
          type: 'gdpr_erasure',
          commandId: ERASE_IDENTITY,
          principalId: ctx.principal?.id ?? null,
          result: 'success',
          correlationId: ctx.correlationId,
          traceId: ctx.trace?.traceId,
          businessIds: { internalIdentityId },
          details: { client_id: projection.clientId, erased_at: now.toISOString(), ...erased },
          occurredAt: now,
        });
        return erased;
      });
      await events.chain();
      ctx.log.info({ ...counts }, 'identity erased');
      return counts;
    },
  });
