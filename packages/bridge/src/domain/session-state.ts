/**
 * The presentation session state machine (000 §3.1). Pure: a table of the moves, the expiry rule, and the states a
 * poller may stop at. Every move is recorded with its time on the session (status history).
 */
export const SESSION_STATUSES = [
  'CREATED',
  'INTERACTION_STARTED',
  'VERIFYING',
  'VERIFIED',
  'IDV_REQUIRED',
  'MATCH_CONFIRMATION_REQUIRED',
  'COMPLETED',
  'EXPIRED',
  'ERROR',
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** 000 §3.1: "PENDING is an alias of CREATED". Stored and answered as CREATED. */
export const normalizeStatus = (status: string): SessionStatus =>
  status === 'PENDING' ? 'CREATED' : (status as SessionStatus);

/** What moves a session. */
export type SessionEvent =
  | 'request_fetched'
  | 'presentation_received'
  | 'presentation_valid'
  | 'presentation_invalid'
  | 'presentation_rejected'
  | 'timeout'
  | 'complete_known_holder'
  | 'complete_unknown_holder'
  | 'complete_unconfirmed_match'
  | 'match_confirmed'
  | 'match_declined'
  | 'idv_completed';

/**
 * The transition table. Rows of 000 §3.1 as written, plus the moves it leaves open ("Other moves ... not shown"),
 * each one decided in packages/bridge/README.md#state-machine:
 * - VERIFYING → INTERACTION_STARTED when a response fails a check (or is the wallet's error response, OID4VP §8.5)
 *   and the session has not yet refused `maxFailedResponses` responses: anyone who sees the QR code can post to the
 *   response URI, so one bad response must not end the sign-in. It is recorded with its check; the nonce stays
 *   unspent until a valid response is accepted.
 * - VERIFYING → ERROR when the response that fails is the last one the bound admits.
 * - VERIFIED → COMPLETED by complete with a known (or auto-matched) holder; VERIFIED → IDV_REQUIRED by complete
 *   with an unknown holder (the 202 answer).
 * - VERIFIED or IDV_REQUIRED → COMPLETED by a successful IDV (§3.1 "any | POST idv/submit", narrowed to the states
 *   from which IDV can be initiated, §3.2).
 * - Match confirmation (issue 14 §11, README "Match confirmation"): VERIFIED → MATCH_CONFIRMATION_REQUIRED by complete
 *   when the plan is CONFIRM_ATTRIBUTE_MATCH (202); then idv/submit: confirmed true with a candidate → COMPLETED
 *   (§3.1 "any | POST idv/submit | confirmed is true | COMPLETED"), confirmed false → IDV_REQUIRED.
 */
const TRANSITIONS: Record<SessionEvent, { from: readonly SessionStatus[]; to: SessionStatus }> = {
  request_fetched: { from: ['CREATED'], to: 'INTERACTION_STARTED' },
  presentation_received: { from: ['INTERACTION_STARTED'], to: 'VERIFYING' },
  presentation_valid: { from: ['VERIFYING'], to: 'VERIFIED' },
  presentation_invalid: { from: ['VERIFYING'], to: 'ERROR' },
  presentation_rejected: { from: ['VERIFYING'], to: 'INTERACTION_STARTED' },
  timeout: { from: ['CREATED', 'INTERACTION_STARTED', 'VERIFYING'], to: 'EXPIRED' },
  complete_known_holder: { from: ['VERIFIED'], to: 'COMPLETED' },
  complete_unknown_holder: { from: ['VERIFIED'], to: 'IDV_REQUIRED' },
  complete_unconfirmed_match: { from: ['VERIFIED'], to: 'MATCH_CONFIRMATION_REQUIRED' },
  match_confirmed: { from: ['MATCH_CONFIRMATION_REQUIRED'], to: 'COMPLETED' },
  match_declined: { from: ['MATCH_CONFIRMATION_REQUIRED'], to: 'IDV_REQUIRED' },
  idv_completed: { from: ['VERIFIED', 'IDV_REQUIRED'], to: 'COMPLETED' },
};

export const transitionFor = (event: SessionEvent) => TRANSITIONS[event];

/** The next status, or null when the event does not apply to the current status. */
export function nextStatus(current: SessionStatus, event: SessionEvent): SessionStatus | null {
  const t = TRANSITIONS[event];
  return t.from.includes(current) ? t.to : null;
}

/**
 * Where a session goes when a response fails: back to INTERACTION_STARTED for another response while fewer than
 * `maxFailedResponses` were refused (this one included), else ERROR.
 */
export function afterRejectedResponse(rejectedBefore: number, maxFailedResponses: number): SessionStatus {
  return rejectedBefore + 1 >= maxFailedResponses
    ? TRANSITIONS.presentation_invalid.to
    : TRANSITIONS.presentation_rejected.to;
}

/** 000 §3.1: terminal states for polling (MATCH_CONFIRMATION_REQUIRED waits for the holder, like IDV_REQUIRED). */
export const TERMINAL_FOR_POLLING: readonly SessionStatus[] = [
  'VERIFIED',
  'IDV_REQUIRED',
  'MATCH_CONFIRMATION_REQUIRED',
  'COMPLETED',
  'EXPIRED',
  'ERROR',
];
export const isTerminalForPolling = (status: SessionStatus) => TERMINAL_FOR_POLLING.includes(status);

/** The states the timeout moves to EXPIRED (000 §3.1, default 5 minutes from creation). */
export const EXPIRABLE: readonly SessionStatus[] = TRANSITIONS.timeout.from;

/** True when the session, read at `now`, has timed out and must be answered as EXPIRED. */
export function hasTimedOut(status: SessionStatus, expiresAt: Date, now: Date): boolean {
  return EXPIRABLE.includes(status) && now.getTime() >= expiresAt.getTime();
}

export interface StatusChange {
  status: SessionStatus;
  at: string;
}
