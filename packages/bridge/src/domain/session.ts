import type { CheckResult, SessionFailure } from './verification/check.js';
import type { SessionStatus, StatusChange } from './session-state.js';
import type { CandidateDisplay } from './resolution/match-candidates.js';

/** A response that failed verification: its check and reason (never a value of what was posted) and its time. */
export interface RejectedResponse extends SessionFailure {
  at: string;
}

/**
 * 000 §2.1 reconciliationPlanType values ("values include" the first three); CONFIRM_ATTRIBUTE_MATCH (extension,
 * issue 14 §11): attribute matching found candidates the holder must confirm (README "Match confirmation").
 */
export type ReconciliationPlanType =
  'USE_EXISTING_BINDING' | 'AUTO_MATCH_BY_ATTRIBUTE' | 'RECONCILE_VIA_IDV' | 'CONFIRM_ATTRIBUTE_MATCH';

export type ResponseMode = 'direct_post' | 'direct_post.jwt';

/** A presentation session as stored (000 §2.1 plus what the flow needs). Sealed fields are opaque here. */
export interface PresentationSession {
  id: string;
  status: SessionStatus;
  queryId: string;
  oauthSessionId: string | null;
  /** The authorization request the session serves (flows.md step 2); redemption must match both. */
  boundClientId: string | null;
  boundCodeChallenge: string | null;
  forceReconciliation: boolean;
  /** Correlation id of the user flow in audit events (000 §6): the oauthSessionId, else the session id. */
  correlationId: string;
  requestId: string;
  /** The verifier's client_id in the request object (with its prefix, OID4VP §5.9). */
  verifierClientId: string;
  responseMode: ResponseMode;
  nonce: string;
  state: string;
  /** The signed request object (RFC 9101), served at the request URI. */
  requestObject: string;
  responseKeySealed: string | null;
  history: StatusChange[];
  checks: CheckResult[];
  failure: SessionFailure | null;
  /** Responses refused while the session stayed open, oldest first (README "Rejected responses"). */
  rejectedResponses: RejectedResponse[];
  holderKey: string | null;
  planType: ReconciliationPlanType | null;
  planIdentityId: string | null;
  idvRequired: boolean;
  idvReason: string | null;
  presentedSealed: string | null;
  resultSealed: string | null;
  /** CONFIRM_ATTRIBUTE_MATCH: the candidates (MatchCandidate[]), sealed: they carry identity ids. */
  matchCandidatesSealed: string | null;
  createdAt: Date;
  expiresAt: Date;
  verifiedAt: Date | null;
  completedAt: Date | null;
  redeemedAt: Date | null;
}

/**
 * The completion result of 000 §2.3 (HTTP 200), also what redemption answers the token service (flows.md step 7).
 * `claimSource` is CANONICAL_BINDING for an existing binding; ATTRIBUTE_MATCH and IDV_RECONCILIATION name the other
 * outcomes (decided, README).
 */
export interface CompletionResult {
  userId: string;
  claims: Record<string, unknown>;
  isNewUser: boolean;
  authenticatedAt: string;
  acr: string;
  amr: string[];
  claimSource: 'CANONICAL_BINDING' | 'ATTRIBUTE_MATCH' | 'IDV_RECONCILIATION';
}

/**
 * 000 §2.3 unknown holder (HTTP 202). `matchConfirmationRequired` (extension): the holder is asked to confirm one of
 * the session's match candidates first (status MATCH_CONFIRMATION_REQUIRED); declining leads to the IDV the other
 * fields describe, so they keep their meaning.
 */
export interface IdvRequiredResult {
  idvRequired: true;
  idvMethod: 'oidc';
  idvSteps: string[];
  matchConfirmationRequired?: true;
}

/** One candidate as the status shows it: an opaque id and masked values (README "Match confirmation"). */
export interface MatchCandidateView extends CandidateDisplay {
  matchId: string;
}

/** 000 §4.1 GET .../status, plus `failure` when the status is ERROR (extension, README). */
export interface SessionStatusView {
  sessionId: string;
  status: SessionStatus;
  idvRequired: boolean;
  idvRequirementReason: string | null;
  reconciliationPlanType: ReconciliationPlanType | null;
  failure?: SessionFailure;
  /** Extension: how many responses were refused so far, and the last one's check, once one was. */
  rejectedResponses?: number;
  lastRejection?: SessionFailure;
  /** Extension: at MATCH_CONFIRMATION_REQUIRED, the candidates the holder chooses from. */
  matchCandidates?: MatchCandidateView[];
}

/** 000 §2.1: idvRequired is meaningful only at VERIFIED or IDV_REQUIRED; the plan type is null before VERIFIED. */
export function statusView(
  session: PresentationSession,
  matchCandidates: MatchCandidateView[] | null = null,
): SessionStatusView {
  const planned =
    session.planType !== null &&
    ['VERIFIED', 'IDV_REQUIRED', 'MATCH_CONFIRMATION_REQUIRED', 'COMPLETED'].includes(session.status);
  return {
    sessionId: session.id,
    status: session.status,
    idvRequired: planned ? session.idvRequired : false,
    idvRequirementReason: planned && session.idvRequired ? session.idvReason : null,
    reconciliationPlanType: planned ? session.planType : null,
    ...(session.status === 'ERROR' && session.failure ? { failure: session.failure } : {}),
    ...rejectionView(session.rejectedResponses),
    ...(session.status === 'MATCH_CONFIRMATION_REQUIRED' && matchCandidates ? { matchCandidates } : {}),
  };
}

function rejectionView(
  rejected: readonly RejectedResponse[],
): Pick<SessionStatusView, 'rejectedResponses' | 'lastRejection'> {
  const last = rejected.at(-1);
  if (!last) return {};
  return { rejectedResponses: rejected.length, lastRejection: { check: last.check, reason: last.reason } };
}
