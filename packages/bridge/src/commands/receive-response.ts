import type { JWK } from 'jose';
import { parseOpenid4vpAuthorizationResponse } from '@openid4vc/openid4vp';
import { defineCommand, invalidRequest, isAppError, StagedAuditEvents } from '@tessera/platform';
import { decryptResponse } from '../crypto/response-encryption.js';
import { sessionAad } from '../crypto/sealing.js';
import { holderKeyOf } from '../domain/resolution/holder-key.js';
import { resolvePlan, type AutoMatchAttribute, type Plan } from '../domain/resolution/plan.js';
import {
  candidateDisplay,
  displayClaimsOf,
  newMatchId,
  type MatchCandidate,
} from '../domain/resolution/match-candidates.js';
import type { PresentationSession } from '../domain/session.js';
import { fail, type CheckResult } from '../domain/verification/check.js';
import { decodeJws, isObjectValue } from '../domain/verification/jws.js';
import { verifierMetrics } from '../observability/verifier-metrics.js';
import { verifyPresentation } from '../domain/verification/verify-presentation.js';
import type { BridgeServices } from '../services.js';
import { replayIndex } from '../storage/replay-index.js';
import { sessionStore } from '../storage/session-store.js';
import { responseRejectedEvent, sessionEvent, sessionFailedEvent } from './audit-events.js';
import { sessionExpired } from './errors.js';
import { readSession } from './read-session.js';

/**
 * POST /auth/oid4vp/responses/{id}: the wallet's authorization response (OID4VP §8.2 direct_post, §8.3
 * direct_post.jwt). A response in the shape of the session's response mode spends the nonce at once
 * (INTERACTION_STARTED → VERIFYING, one conditional update: a concurrent POST is refused with 400 and moves
 * nothing; OID4VP §13.3, security checklist). Then every check runs (domain/verification) and the session moves to
 * VERIFIED, with the reconciliation plan decided (000 §3.1). A response that fails a check is recorded with the check
 * and the session goes back to INTERACTION_STARTED for another response, up to `maxFailedResponses` refused responses
 * and then ERROR: anyone who sees the QR code can post here, and one bad POST must not spoil the sign-in. The nonce is
 * spent by the accepted response only; after it, every POST is 400. The digests of an accepted response enter the
 * replay index in the same unit of work. Never a redirect (§14.8).
 */
export interface ReceiveResponseInput {
  requestId: string;
  body: Record<string, string>;
}

const WALLET_ERROR = /^[A-Za-z0-9_.-]{1,64}$/;
const ATTRIBUTE_CLAIM = (serviceClaim: string): Record<AutoMatchAttribute, string> => ({
  SERVICE_ID: serviceClaim,
  EPPN: 'eduperson_principal_name',
});

const notAccepted = () => invalidRequest('The presentation was not accepted.');

export const receiveResponse = (services: BridgeServices) =>
  defineCommand<ReceiveResponseInput, { accepted: true }>({
    id: 'bridge.responses.receive',
    access: 'public',
    audit: 'self',
    async run(ctx, { requestId, body }) {
      const session = await readSession(services, ctx.tenantId, { requestId });
      if (session.status === 'EXPIRED') throw sessionExpired();
      if (session.status !== 'INTERACTION_STARTED')
        throw invalidRequest('The response endpoint accepts one response per request, after the request was fetched.');
      const jwtMode = session.responseMode === 'direct_post.jwt';
      // OID4VP §8.5: an error response carries no presentation; it is accepted in the clear in either mode.
      const walletError = body.error !== undefined && body.vp_token === undefined && body.response === undefined;
      if (jwtMode && !walletError && typeof body.response !== 'string')
        throw invalidRequest('A direct_post.jwt response carries the response parameter.', 'response');
      if (!jwtMode && body.vp_token === undefined && body.error === undefined)
        throw invalidRequest('A direct_post response carries vp_token or error.', 'vp_token');

      const started = await services.platform.db.withTenant(ctx.tenantId, (sql) =>
        sessionStore.transition(sql, session.id, ['INTERACTION_STARTED'], 'VERIFYING', services.clock.now()),
      );
      if (!started) throw invalidRequest('The response endpoint accepts one response per request.');

      const metrics = verifierMetrics(services.platform.metrics);
      const verifyStarted = performance.now();
      let outcome: ResponseOutcome;
      try {
        outcome = await verifyResponse(services, ctx.tenantId, started, body);
      } catch (error) {
        metrics.observe(started.queryId, 'error', (performance.now() - verifyStarted) / 1000);
        throw error;
      }
      metrics.observe(
        started.queryId,
        outcome.ok ? 'verified' : outcome.failure.check === 'wallet_error' ? 'wallet_error' : 'rejected',
        (performance.now() - verifyStarted) / 1000,
      );
      if (!outcome.ok) {
        await rejectResponse(services, ctx.tenantId, started, outcome.checks, outcome.failure);
        if (outcome.failure.check === 'wallet_error') return { accepted: true };
        throw notAccepted();
      }
      return finishVerified(services, ctx.tenantId, started, outcome);
    },
  });

type ResponseOutcome =
  | { ok: false; checks: CheckResult[]; failure: CheckResult }
  | { ok: true; checks: CheckResult[]; credentials: Awaited<ReturnType<typeof verifyPresentation>> & { ok: true } };

async function verifyResponse(
  services: BridgeServices,
  tenantId: string,
  session: PresentationSession,
  body: Record<string, string>,
): Promise<ResponseOutcome> {
  const jwtMode = session.responseMode === 'direct_post.jwt' && body.response !== undefined;
  let payload: Record<string, unknown> = body;
  const privateJwk = jwtMode
    ? await services.sealer.openJson<JWK>(session.responseKeySealed!, sessionAad(tenantId, session.id, 'response_key'))
    : null;
  if (privateJwk) {
    const plaintext = await decryptResponse(body.response!, privateJwk);
    const decoded = plaintext === null ? null : parseObject(plaintext);
    if (!decoded) return failed(fail('decryption', "the response is not a JWE this session's key decrypts"));
    payload = decoded;
  }
  // OID4VP §8.5: an error response from the wallet ends the session.
  if (payload.error !== undefined) {
    const code =
      typeof payload.error === 'string' && WALLET_ERROR.test(payload.error) ? payload.error : 'unknown_error';
    return failed(fail('wallet_error', `the wallet answered ${code}`));
  }
  if (payload.state !== session.state)
    return failed(fail('response', 'the response state is not the state of this request'));

  const requestPayload = decodeJws(session.requestObject)!.payload;
  let vpToken: unknown;
  try {
    // The library's callbacks are passed explicitly (dependencies.md): it decrypts again with the same key and
    // validates the response against the request (state, response mode, the vp_token shape of DCQL).
    const parsed = await parseOpenid4vpAuthorizationResponse({
      authorizationResponse: body,
      authorizationRequestPayload: requestPayload as never,
      callbacks: {
        decryptJwe: async (jwe) => {
          if (!privateJwk) return { decrypted: false };
          const plaintext = await decryptResponse(jwe, privateJwk);
          return plaintext === null
            ? { decrypted: false }
            : { decrypted: true, decryptionJwk: privateJwk as never, payload: plaintext };
        },
        verifyJwt: async () => ({ verified: false }),
      },
    });
    if (parsed.type !== 'dcql') return failed(fail('response', 'the response is not a DCQL response'));
    vpToken = parsed.dcql.presentations;
  } catch {
    return failed(fail('response', 'the authorization response is malformed'));
  }

  const query = services.queries.get(session.queryId);
  if (!query) return failed(fail('dcql', 'the query of this session is no longer configured'));
  const result = await verifyPresentation(
    {
      vpToken,
      query,
      clientId: session.verifierClientId,
      nonce: session.nonce,
      now: services.clock.now(),
      kbJwtMaxAgeSeconds: services.config.kbJwtMaxAgeSeconds,
      clockSkewSeconds: services.config.clockSkewSeconds,
    },
    {
      status: services.status,
      usedDigests: (digests) => services.platform.db.withPlatform((sql) => replayIndex.findUsed(sql, digests)),
    },
  );
  if (!result.ok) return { ok: false, checks: result.checks, failure: result.failure };
  return { ok: true, checks: result.checks, credentials: result };
}

const failed = (failure: CheckResult): ResponseOutcome => ({ ok: false, checks: [failure], failure });

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return isObjectValue(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * Records a failed response: the session reopens for another response, or ends in ERROR once it has refused
 * `maxFailedResponses` (README "Rejected responses"). Audited either way, with the check and never a value.
 */
async function rejectResponse(
  services: BridgeServices,
  tenantId: string,
  session: PresentationSession,
  checks: CheckResult[],
  failure: CheckResult,
): Promise<void> {
  const now = services.clock.now();
  const record = { check: failure.check, reason: failure.reason ?? 'failed' };
  // The refusal and its event commit together (issue 13 §7).
  const events = new StagedAuditEvents(services.platform.audit);
  const moved = await services.platform.db.withTenant(tenantId, async (sql) => {
    const rejected = await sessionStore.reject(
      sql,
      session.id,
      { ...record, at: now.toISOString() },
      checks,
      services.config.maxFailedResponses,
      now,
    );
    if (rejected)
      await events.stage(
        sql,
        rejected.status === 'ERROR'
          ? sessionFailedEvent(services, tenantId, rejected, record)
          : responseRejectedEvent(services, tenantId, rejected, record, rejected.rejectedResponses.length),
      );
    return rejected;
  });
  await events.chain();
  services.platform.logger.info(
    { session_id: session.id, check: failure.check, session_status: moved?.status },
    'presentation refused',
  );
}

async function finishVerified(
  services: BridgeServices,
  tenantId: string,
  session: PresentationSession,
  outcome: Extract<ResponseOutcome, { ok: true }>,
): Promise<{ accepted: true }> {
  const { config, identities } = services;
  const verified = outcome.credentials;
  const holderKey = await holderKeyOf(
    verified.credentials[0]!,
    config.identityResolution.holderKeyStrategy,
    config.identityResolution.subjectClaim,
  );
  if (!holderKey) {
    const failure = fail(
      'holder_binding',
      `the credential has no ${config.identityResolution.subjectClaim} claim to key the holder on`,
    );
    await rejectResponse(services, tenantId, session, [...outcome.checks, failure], failure);
    throw notAccepted();
  }
  const attributeClaims = ATTRIBUTE_CLAIM(services.serviceClaim);
  const now = services.clock.now();
  const presentedSealed = await services.sealer.sealJson(
    verified.claims,
    sessionAad(tenantId, session.id, 'presented'),
  );
  let moved: PresentationSession | null;
  // The move to VERIFIED, the replay digests and session_verified commit together (issue 13 §7).
  const events = new StagedAuditEvents(services.platform.audit);
  try {
    moved = await services.platform.db.withTenant(tenantId, async (sql) => {
      const unit = { tenantId, sql };
      const plan = await resolvePlan({
        holderKey,
        forceReconciliation: session.forceReconciliation,
        autoMatch: config.identityResolution.autoMatchAttributes,
        attributes: {
          SERVICE_ID: verified.claims[attributeClaims.SERVICE_ID],
          EPPN: verified.claims[attributeClaims.EPPN],
        },
        presented: verified.claims,
        confirmation: {
          enabled: config.identityResolution.matchConfirmation.enabled,
          maxCandidates: config.identityResolution.matchConfirmation.maxCandidates,
          identifyingClaims: identifyingClaimsOf(services),
        },
        lookup: {
          byHolderKey: (key) => identities.findByHolderKey(unit, key),
          byIdentifier: (type, value) => identities.findByIdentifier(unit, type, value),
        },
      });
      await replayIndex.record(sql, verified.digests, now);
      const verifiedSession = await sessionStore.transition(sql, session.id, ['VERIFYING'], 'VERIFIED', now, {
        checks: outcome.checks,
        holderKey,
        planType: plan.type,
        planIdentityId: plan.identityId,
        idvRequired: plan.idvRequired,
        idvReason: plan.reason,
        presentedSealed,
        matchCandidatesSealed: await sealCandidates(services, tenantId, session.id, plan, verified.claims, sql),
        verifiedAt: now,
      });
      if (verifiedSession)
        await events.stage(
          sql,
          sessionEvent(services, tenantId, verifiedSession, 'session_verified', {
            planType: verifiedSession.planType,
            queryId: verifiedSession.queryId,
          }),
        );
      return verifiedSession;
    });
  } catch (error) {
    // Another session accepted the same presentation between our replay check and this unit of work.
    if (!isAppError(error) || error.code !== 'already_exists') throw error;
    const failure = fail('replay', 'a presentation of this response was accepted by another session');
    await rejectResponse(services, tenantId, session, [...outcome.checks, failure], failure);
    throw notAccepted();
  }
  if (!moved) throw sessionExpired('The session expired while the presentation was verified.');
  await events.chain();
  return { accepted: true };
}

/** The claims compared with a match candidate: the IDV's identifying claims (README "Claims comparison"). */
export const identifyingClaimsOf = (services: BridgeServices): string[] =>
  services.config.idv.identifyingClaims ?? [services.serviceClaim, 'eduperson_principal_name'];

/**
 * CONFIRM_ATTRIBUTE_MATCH: the candidates, each with a fresh random match id and its masked display, sealed on the
 * session (README "Match confirmation"). Null for every other plan.
 */
async function sealCandidates(
  services: BridgeServices,
  tenantId: string,
  sessionId: string,
  plan: Plan,
  presented: Record<string, unknown>,
  sql: Parameters<BridgeServices['sealer']['sealJson']>[2],
): Promise<string | null> {
  if (plan.type !== 'CONFIRM_ATTRIBUTE_MATCH' || !plan.candidates) return null;
  const shown = displayClaimsOf(identifyingClaimsOf(services));
  const institution = services.config.identityResolution.matchConfirmation.institutionName ?? null;
  const candidates: MatchCandidate[] = plan.candidates.map((c) => ({
    matchId: newMatchId(),
    identityId: c.identity.internalIdentityId,
    display: candidateDisplay(c.identity, c.matchedOn, presented, shown, institution),
  }));
  return services.sealer.sealJson(candidates, sessionAad(tenantId, sessionId, 'match_candidates'), sql);
}
