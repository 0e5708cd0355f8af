import type { Clock, CommandContext, Sql, StagedAuditEvents } from '@tessera/platform';
import { subjectGrantStore } from '../storage/subject-grant-store.js';

/** Audit command id of the revocation (001 §5: command ids name the use case). */
export const REVOKE_SUBJECT_GRANTS = 'token-service.grants.revoke-subject';

/**
 * The unit of work the revocation runs in: the caller's transaction of its tenant, the caller's staged audit events
 * (the revocation's event commits with that transaction and is chained with the caller's events), and who asked.
 */
export interface SubjectGrantsUnit {
  ctx: Pick<CommandContext, 'tenantId' | 'principal' | 'correlationId' | 'trace'>;
  sql: Sql;
  events: StagedAuditEvents;
}

export interface SubjectGrantsRevoked {
  grants: number;
  refreshTokens: number;
  authorizationCodes: number;
}

export type RevokeSubjectGrants = (
  unit: SubjectGrantsUnit,
  input: { subject: string; reason: string },
) => Promise<SubjectGrantsRevoked>;

/**
 * Revokes every grant of a subject (000 §4.3: an identity erasure removes its "cached tokens"): the grants revoked and
 * emptied of subject and claims, their refresh tokens and unredeemed codes deleted (storage/subject-grant-store.ts).
 * Another context asks for it (the bridge's erasure, through its port) and hands over its unit of work, so that the
 * revocation, its audit event and the caller's own change commit in one transaction: a caller that answers an error
 * has revoked nothing (issue 13 §7). The caller's policy decision covers it. Idempotent.
 */
export function revokeSubjectGrants(deps: { clock: Clock }): RevokeSubjectGrants {
  return async ({ ctx, sql, events }, { subject, reason }) => {
    const now = deps.clock.now();
    const revoked = await subjectGrantStore.revokeAll(sql, subject, reason, now);
    await events.stage(sql, {
      tenantId: ctx.tenantId,
      type: 'command.executed',
      commandId: REVOKE_SUBJECT_GRANTS,
      principalId: ctx.principal?.id ?? null,
      result: 'success',
      correlationId: ctx.correlationId,
      traceId: ctx.trace?.traceId,
      businessIds: { subject },
      details: { reason, ...revoked },
      occurredAt: now,
    });
    return revoked;
  };
}
