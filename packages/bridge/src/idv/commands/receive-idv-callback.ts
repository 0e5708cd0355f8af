import {
  defineCommand,
  isAppError,
  StagedAuditEvents,
  UpstreamLoginError,
  type UpstreamLoginResult,
} from '@tessera/platform';
import { sessionStore } from '../../storage/session-store.js';
import { reasonOfUpstreamError, type IdvFailureReason } from '../domain/failure-reasons.js';
import { institutionalClaims, type InstitutionalLogin } from '../domain/institutional-claims.js';
import { portalCallbackUrl } from '../domain/portal-redirect.js';
import type { IdvServices } from '../idv-services.js';
import { reconciliationStore, type Reconciliation } from '../storage/reconciliation-store.js';
import { idvFailedEvent } from './idv-audit.js';
import { failReconciliation, markFailed, reconciliationAad } from './fail-reconciliation.js';
import { finishReconciliation } from './finish-reconciliation.js';

/**
 * GET /auth/oid4vp/idv/callback (000 §4.2), in the order of the specification:
 * (1) the state, already opened and checked by the route (callback-context.ts), is spent here: REDIRECTED →
 *     CALLBACK_RECEIVED in one conditional update for this very state id, before its expiry. A state already spent,
 *     or an attempt no longer at the provider, answers `invalid_state` (the route's 400 page) and changes nothing.
 *     The presentation session must still await IDV (else ERROR `session_expired` / `session_invalid`).
 * (2)–(3) the code is exchanged server to server with the sealed PKCE verifier and the client's credentials, and the
 *     ID token verified (signature against the provider's key set, iss, aud, exp, nonce): UpstreamOidcClient.
 * (4) the claims: the service claim or sub at minimum, plus `idv.requiredClaims` (else ERROR `missing_claim`).
 *     The verified login is kept sealed on the attempt until (5) has recorded it.
 * (5)–(6) finishReconciliation: identity, bindings, session completion, one unit of work.
 * (7) the browser goes to `{portalUrl}/wallet/callback?session=…&status=success|error&reason=…`.
 */
export interface IdvCallbackInput {
  reconciliationId: string;
  stateId: string;
  /** The state as received: the authorization response is checked against it. */
  state: string;
  /** The whole query the provider sent (code, state, iss, or error). */
  query: URLSearchParams;
}

export type IdvCallbackOutcome = { kind: 'invalid_state' } | { kind: 'redirect'; location: string; sessionId: string };

export const receiveIdvCallback = (idv: IdvServices) =>
  defineCommand<IdvCallbackInput, IdvCallbackOutcome>({
    id: 'bridge.idv.callback',
    access: 'public',
    businessIds: (input, output): Record<string, string> => ({
      reconciliationSessionId: input.reconciliationId,
      ...(output?.kind === 'redirect' ? { sessionId: output.sessionId } : {}),
    }),
    async run(ctx, input) {
      const services = idv.bridge;
      const tenantId = ctx.tenantId;
      const now = services.clock.now();
      // The spent state (and a blocked attempt's failure) commit with their audit events (issue 13 §7).
      const blockedEvents = new StagedAuditEvents(services.platform.audit);
      const spent = await ctx.unitOfWork(async (sql) => {
        const attempt = await reconciliationStore.spendState(sql, input.reconciliationId, input.stateId, now);
        if (!attempt) return null;
        const session = await sessionStore.get(sql, attempt.sessionId);
        let blocked: IdvFailureReason | null = null;
        if (!session || (session.status !== 'VERIFIED' && session.status !== 'IDV_REQUIRED'))
          blocked = 'session_invalid';
        else if (now >= session.expiresAt) blocked = 'session_expired';
        if (blocked) {
          await markFailed(sql, attempt.id, blocked, now);
          await blockedEvents.stage(sql, idvFailedEvent(idv, tenantId, attempt, blocked));
        }
        return { attempt, blocked };
      });
      if (!spent) {
        ctx.log.warn(
          { reconciliation_session_id: input.reconciliationId },
          'IDV callback state already spent or attempt closed',
        );
        return { kind: 'invalid_state' };
      }
      const { attempt } = spent;
      const toPortal = (reason: IdvFailureReason | null): IdvCallbackOutcome => ({
        kind: 'redirect',
        sessionId: attempt.sessionId,
        location: portalCallbackUrl(
          idv.config.portalUrl,
          attempt.sessionId,
          reason ? { status: 'error', reason } : { status: 'success' },
        ),
      });
      const fail = async (reason: IdvFailureReason) => {
        ctx.log.info({ reconciliation_session_id: attempt.id, reason }, 'identity verification failed');
        const failed = await failReconciliation(idv, tenantId, attempt.id, reason);
        if (failed) return toPortal(reason);
        return toPortal(await endedWith(idv, tenantId, attempt.id));
      };
      if (spent.blocked) {
        await blockedEvents.chain();
        return toPortal(spent.blocked);
      }

      let result: UpstreamLoginResult;
      try {
        const { codeVerifier } = await services.sealer.openJson<{ codeVerifier: string }>(
          attempt.pkceSealed!,
          reconciliationAad(tenantId, attempt.id, 'pkce'),
        );
        result = await idv.provider().finishLogin({
          redirectUri: idv.redirectUri,
          callbackQuery: input.query,
          state: input.state,
          nonce: attempt.nonce!,
          codeVerifier,
          userinfo: idv.config.userinfo,
        });
      } catch (error) {
        if (error instanceof UpstreamLoginError) {
          ctx.log.warn(
            { reconciliation_session_id: attempt.id, step: error.reason, provider_error: error.providerError },
            'institutional login not accepted',
          );
          return fail(reasonOfUpstreamError(error));
        }
        if (isAppError(error) && error.code === 'service_unavailable') return fail('provider_unavailable');
        // Anything else (the key manager, the database): the attempt ends, the browser still goes back to the portal.
        ctx.log.error(
          { reconciliation_session_id: attempt.id, error_name: error instanceof Error ? error.name : 'unknown' },
          'IDV callback failed before the login was verified',
        );
        return fail('processing_failed');
      }

      const checked = institutionalClaims(
        { subject: result.subject, claims: result.claims },
        services.serviceClaim,
        idv.config.requiredClaims,
        idv.identifyingClaims,
      );
      if (!checked.ok) {
        ctx.log.info({ reconciliation_session_id: attempt.id, missing: checked.missing }, 'required claim missing');
        return fail('missing_claim');
      }
      const login: InstitutionalLogin = {
        issuer: result.issuer,
        subject: result.subject,
        acr: result.acr,
        claims: checked.identityClaims,
      };
      const sealed = await services.sealer.sealJson(login, reconciliationAad(tenantId, attempt.id, 'outcome'));
      const kept = await services.platform.db.withTenant(tenantId, (sql) =>
        reconciliationStore.keepOutcome(sql, attempt.id, sealed),
      );
      if (!kept) return toPortal(await endedWith(idv, tenantId, attempt.id));

      try {
        const finished = await finishReconciliation(idv, tenantId, attempt, login);
        return toPortal(finished.ok ? null : finished.reason);
      } catch (error) {
        // The verified login stays sealed on the CALLBACK_RECEIVED attempt: submit (confirmed true) records it.
        ctx.log.error(
          { reconciliation_session_id: attempt.id, error_name: error instanceof Error ? error.name : 'unknown' },
          'recording the verified login failed',
        );
        return toPortal('processing_failed');
      }
    },
  });

/** The reason an attempt that another request moved ended with. */
async function endedWith(idv: IdvServices, tenantId: string, id: string): Promise<IdvFailureReason> {
  const current: Reconciliation | null = await idv.bridge.platform.db.withTenant(tenantId, (sql) =>
    reconciliationStore.get(sql, id),
  );
  return current?.errorReason ?? 'aborted';
}
