import { isAppError, StagedAuditEvents } from '@tessera/platform';
import type { IdentityRecord } from '@tessera/identity';
import { completeSessionAfterIdv, getVerifiedPresentation } from '../../commands/complete-session-after-idv.js';
import { SessionStateError } from '../../commands/errors.js';
import type { IdvFailureReason } from '../domain/failure-reasons.js';
import { mismatchedClaims, type InstitutionalLogin } from '../domain/institutional-claims.js';
import type { IdvServices } from '../idv-services.js';
import { reconciliationStore, type Reconciliation } from '../storage/reconciliation-store.js';
import { idvEvent } from './idv-audit.js';
import { failReconciliation, ownUnit, type UnitRunner } from './fail-reconciliation.js';

/**
 * 000 §4.2 (5)–(6), §3.2 "CALLBACK_RECEIVED → COMPLETED": in ONE unit of work, the institutional identity is found
 * by its federation binding (issuer, sub) or created with its federation binding, the wallet holder key of the
 * presentation (as identity resolution computed it) is bound to it, the presentation session is completed
 * (completeSessionAfterIdv: the completion result sealed on the session, `complete` then answers 200 isNewUser
 * true) and the attempt moves to COMPLETED. Any failure rolls the whole unit back ("nothing half-built") and ends
 * the attempt in ERROR with its reason. Its `binding_created` and `idv_completed` events are staged in that unit of
 * work, so the completion never commits without them (issue 13 §7). The reasons:
 * - the wallet credential's identifying claims disagree with the institution's (`idv.claimsMatch`) →
 *   `claims_mismatch` (issue 14 §1);
 * - the institutional identity already bound to a different wallet holder, or the holder key already bound to
 *   another identity → `already_bound`;
 * - the presentation session expired → `session_expired`; no longer VERIFIED or IDV_REQUIRED → `session_invalid`.
 * An unexpected failure (the database) is thrown: the attempt stays CALLBACK_RECEIVED with its verified login
 * sealed, and submit with confirmed true runs this again. `unit` is the caller's command unit of work when its own
 * audit event is to commit with this (submit), else a transaction of its own.
 */
export type FinishOutcome =
  | { ok: true; identityId: string; identityCreated: boolean; walletBindingCreated: boolean }
  | { ok: false; reason: IdvFailureReason };

class IdvFailure extends Error {
  constructor(
    readonly reason: IdvFailureReason,
    /** Names of the claims that disagree (claims_mismatch), for the log; never values. */
    readonly claims: string[] = [],
  ) {
    super(reason);
  }
}

class AttemptMoved extends Error {}

export async function finishReconciliation(
  idv: IdvServices,
  tenantId: string,
  attempt: Reconciliation,
  login: InstitutionalLogin,
  unit: UnitRunner = ownUnit(idv, tenantId),
): Promise<FinishOutcome> {
  const services = idv.bridge;
  let done: { identityId: string; identityCreated: boolean; walletBindingCreated: boolean };
  const events = new StagedAuditEvents(services.platform.audit);
  try {
    done = await unit(async (sql) => {
      const unit = { tenantId, sql };
      const now = services.clock.now();
      const presentation = await getVerifiedPresentation(services, unit, attempt.sessionId);
      if (now.getTime() >= Date.parse(presentation.expiresAt)) throw new IdvFailure('session_expired');
      if (!presentation.holderKey) throw new IdvFailure('session_invalid');
      const mismatched = mismatchedClaims(
        presentation.claims,
        login.claims,
        idv.identifyingClaims,
        idv.config.claimsMatch,
      );
      if (mismatched.length > 0) throw new IdvFailure('claims_mismatch', mismatched);
      const institutional = await services.identities.findByFederationSubject(unit, login.issuer, login.subject);
      const holderIdentity = await services.identities.findByHolderKey(unit, presentation.holderKey);
      let identity: IdentityRecord;
      let identityCreated = false;
      if (institutional) {
        const sameHolder = holderIdentity?.internalIdentityId === institutional.internalIdentityId;
        if (!sameHolder && (holderIdentity || institutional.bindings.walletBound))
          throw new IdvFailure('already_bound');
        identity = institutional;
        // The institution's claims as released now are the identity's (one set of claims per person, issue 14 §1).
        const reconciled = { ...institutional.claims, ...login.claims };
        if (JSON.stringify(reconciled) !== JSON.stringify(institutional.claims))
          await services.identities.updateClaims(unit, institutional.internalIdentityId, reconciled);
      } else {
        if (holderIdentity) throw new IdvFailure('already_bound');
        identity = await services.identities.createIdentity(unit, {
          claims: login.claims,
          assurance: {
            acr: login.acr ?? `urn:${services.platform.config.deployment.acrVendor}:idv:oidc`,
            amr: ['vp', 'federation'],
          },
        });
        await services.identities.bindFederation(unit, identity.internalIdentityId, login.issuer, login.subject);
        identityCreated = true;
      }
      const walletBindingCreated = !holderIdentity;
      if (walletBindingCreated)
        await services.identities.bindWallet(unit, identity.internalIdentityId, presentation.holderKey);
      await completeSessionAfterIdv(services, unit, attempt.sessionId, identity.internalIdentityId);
      const moved = await reconciliationStore.transition(sql, attempt.id, ['CALLBACK_RECEIVED'], 'COMPLETED', now, {
        identityId: identity.internalIdentityId,
        completedAt: now,
        pkceSealed: null,
        outcomeSealed: null,
      });
      if (!moved) throw new AttemptMoved();
      const identityId = identity.internalIdentityId;
      if (walletBindingCreated)
        await events.stage(
          sql,
          idvEvent(idv, tenantId, attempt, 'binding_created', {
            identityId,
            planType: 'RECONCILE_VIA_IDV',
            bindings: identityCreated ? ['wallet', 'federation'] : ['wallet'],
          }),
        );
      await events.stage(
        sql,
        idvEvent(idv, tenantId, attempt, 'idv_completed', {
          identityId,
          identityCreated,
          claimSource: 'IDV_RECONCILIATION',
        }),
      );
      return { identityId, identityCreated, walletBindingCreated };
    });
  } catch (error) {
    if (error instanceof AttemptMoved) {
      // Aborted or timed out meanwhile: nothing of this unit stays; answer with the reason it ended with.
      const current = await services.platform.db.withTenant(tenantId, (sql) =>
        reconciliationStore.get(sql, attempt.id),
      );
      return { ok: false, reason: current?.errorReason ?? 'aborted' };
    }
    const reason = domainReason(error);
    if (!reason) throw error;
    if (error instanceof IdvFailure && error.claims.length > 0)
      services.platform.logger.info(
        { reconciliation_session_id: attempt.id, reason, claims: error.claims },
        'the wallet credential and the institutional login disagree',
      );
    await failReconciliation(idv, tenantId, attempt.id, reason, unit);
    return { ok: false, reason };
  }
  await events.chain();
  return { ok: true, ...done };
}

/** The failures the callback reports as a reason; anything else is unexpected. */
function domainReason(error: unknown): IdvFailureReason | null {
  if (error instanceof IdvFailure) return error.reason;
  if (error instanceof SessionStateError) return 'session_invalid';
  if (!isAppError(error)) return null;
  if (error.wireCode === 'session_expired') return 'session_expired';
  if (error.wireCode === 'session_not_found') return 'session_invalid';
  // bindWallet / bindFederation: the key or the subject is held by another identity (also when a concurrent
  // reconciliation won the race on the unique index).
  if (error.code === 'conflict' || error.code === 'already_exists') return 'already_bound';
  return null;
}
