import type { Sql } from '@tessera/platform';
import type { IdentityRecord } from '@tessera/identity';
import { sessionAad } from '../crypto/sealing.js';
import type { CompletionResult, PresentationSession } from '../domain/session.js';
import type { BridgeServices } from '../services.js';

/**
 * The sealed parts of a session, opened; and the completion result (000 §2.3) built from an identity. `sql` is the
 * caller's unit of work when there is one (the key manager reads its key rows through it).
 */
export async function presentedClaimsOf(
  services: BridgeServices,
  tenantId: string,
  session: PresentationSession,
  sql?: Sql,
): Promise<Record<string, unknown>> {
  return session.presentedSealed
    ? services.sealer.openJson<Record<string, unknown>>(
        session.presentedSealed,
        sessionAad(tenantId, session.id, 'presented'),
        sql,
      )
    : {};
}

export async function storedResultOf(
  services: BridgeServices,
  tenantId: string,
  session: PresentationSession,
  sql?: Sql,
): Promise<CompletionResult> {
  if (!session.resultSealed) throw new Error('a completed session has no stored result');
  return services.sealer.openJson<CompletionResult>(
    session.resultSealed,
    sessionAad(tenantId, session.id, 'result'),
    sql,
  );
}

/**
 * The 200 answer of complete (000 §2.3): the internal identity id as userId, its claims, acr `urn:<vendor>:oid4vp:vp`,
 * amr [vp], and the time of the wallet authentication (when the presentation was verified). One person, one set of
 * claims (issue 14 §1; README "Claims precedence"): the identity's claims (the institution's, as reconciled) win;
 * the wallet's disclosed claims only fill claims the identity lacks, so the tokens of a `sub` say the same whichever
 * path signed the person in.
 */
export function completionResult(
  services: BridgeServices,
  session: PresentationSession,
  presented: Record<string, unknown>,
  identity: IdentityRecord,
  claimSource: CompletionResult['claimSource'],
  isNewUser: boolean,
): CompletionResult {
  return {
    userId: identity.internalIdentityId,
    claims: { ...presented, ...identity.claims },
    isNewUser,
    authenticatedAt: (session.verifiedAt ?? services.clock.now()).toISOString(),
    acr: services.acr,
    amr: ['vp'],
    claimSource,
  };
}

export const sealResult = (
  services: BridgeServices,
  tenantId: string,
  sessionId: string,
  result: CompletionResult,
  sql?: Sql,
) => services.sealer.sealJson(result, sessionAad(tenantId, sessionId, 'result'), sql);
