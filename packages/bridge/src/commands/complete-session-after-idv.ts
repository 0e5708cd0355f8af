import type { IdentityRecord, TenantUnit } from '@tessera/identity';
import type { CompletionResult } from '../domain/session.js';
import type { BridgeServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';
import { completionResult, presentedClaimsOf, sealResult, storedResultOf } from './completion.js';
import { invalidSessionState, sessionExpired, sessionNotFound } from './errors.js';

/**
 * For the IDV flow (issue 5; 000 §4.2 callback step 6, flows.md 6'): after the identity and the binding of the
 * holder key exist, the presentation session is completed in the same unit of work, so that `complete` then
 * answers 200 (isNewUser true, claimSource IDV_RECONCILIATION). Allowed from VERIFIED or IDV_REQUIRED before the
 * session's expiry; a COMPLETED session answers its stored result.
 */
export async function completeSessionAfterIdv(
  services: BridgeServices,
  unit: TenantUnit,
  sessionId: string,
  identityId: string,
): Promise<CompletionResult> {
  const session = await sessionStore.get(unit.sql, sessionId);
  if (!session) throw sessionNotFound();
  if (session.status === 'COMPLETED') return storedResultOf(services, unit.tenantId, session, unit.sql);
  if (session.status !== 'VERIFIED' && session.status !== 'IDV_REQUIRED')
    throw invalidSessionState(`The session is ${session.status}; IDV completes a VERIFIED or IDV_REQUIRED session.`);
  const now = services.clock.now();
  if (now >= session.expiresAt) throw sessionExpired();
  const identity: IdentityRecord | null = await services.identities.get(unit, identityId);
  if (!identity) throw invalidSessionState('The identity to complete the session with does not exist.');
  const presented = await presentedClaimsOf(services, unit.tenantId, session, unit.sql);
  const result = completionResult(services, session, presented, identity, 'IDV_RECONCILIATION', true);
  const moved = await sessionStore.transition(unit.sql, sessionId, ['VERIFIED', 'IDV_REQUIRED'], 'COMPLETED', now, {
    resultSealed: await sealResult(services, unit.tenantId, sessionId, result, unit.sql),
    completedAt: now,
    planIdentityId: identityId,
  });
  if (!moved) throw invalidSessionState('The session moved while IDV completed it.');
  return result;
}

/** What the IDV flow needs of a verified session: the holder key to bind and the presented claims. */
export interface VerifiedPresentation {
  sessionId: string;
  status: string;
  holderKey: string | null;
  claims: Record<string, unknown>;
  correlationId: string;
  expiresAt: string;
}

export async function getVerifiedPresentation(
  services: BridgeServices,
  unit: TenantUnit,
  sessionId: string,
): Promise<VerifiedPresentation> {
  const session = await sessionStore.get(unit.sql, sessionId);
  if (!session) throw sessionNotFound();
  if (session.status !== 'VERIFIED' && session.status !== 'IDV_REQUIRED')
    throw invalidSessionState(`The session is ${session.status}.`);
  return {
    sessionId,
    status: session.status,
    holderKey: session.holderKey,
    claims: await presentedClaimsOf(services, unit.tenantId, session, unit.sql),
    correlationId: session.correlationId,
    expiresAt: session.expiresAt.toISOString(),
  };
}
