import type { CommandContext, Sql, StagedAuditEvents } from '@tessera/platform';

/**
 * The token service's part of an identity erasure (000 §4.3: the erasure removes "session artifacts and cached
 * tokens"): every grant whose subject is the identity revoked, its refresh tokens and codes deleted. A port the bridge
 * declares and the composition root fills with the token service's `revokeSubjectGrants`, so that the bridge never
 * writes the token service's tables (issue 13 §9).
 *
 * It runs in the erasure's unit of work (`sql`, one transaction of the tenant, in the one database every role of a
 * deployment shares) and stages its audit event in the erasure's `events`: the erasure, the revocation and both
 * events commit together, and an erasure that answers an error has revoked nothing (issue 13 §7). A composition
 * without the token service (no grants to revoke) leaves it out.
 */
export type SubjectGrantRevocation = (
  unit: {
    ctx: Pick<CommandContext, 'tenantId' | 'principal' | 'correlationId' | 'trace'>;
    sql: Sql;
    events: StagedAuditEvents;
  },
  input: { subject: string; reason: string },
) => Promise<{ grants: number; refreshTokens: number }>;
