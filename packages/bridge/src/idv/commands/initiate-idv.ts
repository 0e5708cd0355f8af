import { randomUUID } from 'node:crypto';
import { AppError, defineCommand, isAppError, secureRandomToken, StagedAuditEvents, type Sql } from '@tessera/platform';
import { invalidSessionState, sessionExpired } from '../../commands/errors.js';
import { readSession } from '../../commands/read-session.js';
import { OPEN_RECONCILIATION_STATUSES } from '../domain/reconciliation-state.js';
import type { IdvServices } from '../idv-services.js';
import { reconciliationStore, type NewReconciliation, type Reconciliation } from '../storage/reconciliation-store.js';
import { idvEvent, idvFailedEvent } from './idv-audit.js';
import { failReconciliation, markFailed, reconciliationAad } from './fail-reconciliation.js';

/**
 * POST /auth/oid4vp/sessions/{sessionId}/idv/initiate (000 §4.2, §3.2 "(none) → CREATED", "CREATED → REDIRECTED").
 * Allowed when the presentation session is VERIFIED or IDV_REQUIRED and not past its expiry (else 409, 410; 404
 * unknown). Each attempt gets a fresh PKCE pair and nonce (the platform's UpstreamOidcClient), the verifier sealed at
 * rest, and a state that is signed and encrypted, names both ids, expires after `idv.stateTtlSeconds` and is spent
 * once. An open attempt of the same session still at the provider is replaced (ERROR `superseded`); one whose
 * answer is being processed refuses a new attempt (409). The provider unreachable: the attempt ends in ERROR
 * `provider_unavailable` and the answer is 503.
 */
export interface InitiateIdvOutput {
  reconciliationSessionId: string;
  authorizationUrl: string;
  providerId: string;
}

export const initiateIdv = (idv: IdvServices) =>
  defineCommand<{ sessionId: string }, InitiateIdvOutput>({
    id: 'bridge.idv.initiate',
    access: 'write',
    requiredScope: idv.bridge.config.sessionClientsScope,
    businessIds: (input, output): Record<string, string> => ({
      sessionId: input.sessionId,
      ...(output ? { reconciliationSessionId: output.reconciliationSessionId } : {}),
    }),
    async run(ctx, { sessionId }) {
      const services = idv.bridge;
      const session = await readSession(services, ctx.tenantId, { id: sessionId });
      if (session.status === 'EXPIRED') throw sessionExpired();
      if (session.status !== 'VERIFIED' && session.status !== 'IDV_REQUIRED')
        throw invalidSessionState(
          `The session is ${session.status}; identity verification starts from VERIFIED or IDV_REQUIRED.`,
          session.status,
        );
      const now = services.clock.now();
      if (now >= session.expiresAt) throw sessionExpired();
      const provider = idv.provider();

      const attempt: NewReconciliation = {
        id: randomUUID(),
        sessionId,
        providerId: idv.providerId,
        correlationId: session.correlationId,
        stateId: secureRandomToken(16),
        createdAt: now,
        expiresAt: new Date(now.getTime() + idv.config.stateTtlSeconds * 1000),
      };
      // Each step's events are staged in its unit of work: they commit with it, the command's own with the first
      // (issue 13 §7).
      const opened = new StagedAuditEvents(services.platform.audit);
      await ctx.unitOfWork(async (sql) => {
        for (const old of await openAttempt(sql, attempt, now))
          await opened.stage(sql, idvFailedEvent(idv, ctx.tenantId, old, 'superseded'));
      });
      await opened.chain();

      const state = await idv.states.encode({
        reconciliationId: attempt.id,
        sessionId,
        stateId: attempt.stateId,
        expiresAt: attempt.expiresAt,
      });
      let start: Awaited<ReturnType<typeof provider.startLogin>>;
      try {
        start = await provider.startLogin(idv.redirectUri, { state });
      } catch (error) {
        ctx.log.warn({ reconciliation_session_id: attempt.id }, 'identity provider unreachable at initiation');
        await failReconciliation(idv, ctx.tenantId, attempt.id, 'provider_unavailable');
        if (isAppError(error)) throw error;
        throw new AppError('service_unavailable', 'The identity provider is unreachable.', { cause: error });
      }
      const pkceSealed = await services.sealer.sealJson(
        { codeVerifier: start.codeVerifier },
        reconciliationAad(ctx.tenantId, attempt.id, 'pkce'),
      );
      const initiated = new StagedAuditEvents(services.platform.audit);
      const redirected = await ctx.unitOfWork(async (sql) => {
        const moved = await reconciliationStore.transition(
          sql,
          attempt.id,
          ['CREATED'],
          'REDIRECTED',
          services.clock.now(),
          { pkceSealed, nonce: start.nonce },
        );
        if (moved) await initiated.stage(sql, idvEvent(idv, ctx.tenantId, moved, 'idv_initiated', {}));
        return moved;
      });
      if (!redirected) throw invalidSessionState('The identity verification attempt was cancelled while it started.');
      await initiated.chain();
      return {
        reconciliationSessionId: attempt.id,
        authorizationUrl: start.authorizationUrl,
        providerId: idv.providerId,
      };
    },
  });

/**
 * In one unit of work: replaces the session's open attempts still at the provider, refuses while an answer is being
 * processed, and inserts the new attempt (the partial unique index lets one of two concurrent initiates win).
 */
async function openAttempt(sql: Sql, attempt: NewReconciliation, now: Date): Promise<Reconciliation[]> {
  const open = await reconciliationStore.openForSession(sql, attempt.sessionId, OPEN_RECONCILIATION_STATUSES);
  // An answer in processing (its state spent, no verified login kept yet) is left to finish, within its lifetime.
  if (open.some((r) => r.status === 'CALLBACK_RECEIVED' && r.outcomeSealed === null && now < r.expiresAt))
    throw invalidSessionState('The identity provider’s answer for this session is being processed.');
  const superseded: Reconciliation[] = [];
  for (const r of open) {
    const moved = await markFailed(sql, r.id, 'superseded', now);
    if (moved) superseded.push(moved);
  }
  try {
    await reconciliationStore.insert(sql, attempt);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === '23505' || (isAppError(error) && error.code === 'already_exists'))
      throw invalidSessionState('Another identity verification attempt is starting for this session.');
    throw error;
  }
  return superseded;
}
