import type { MessageKey } from '../i18n/en.js';

/**
 * What the sign-in page shows, derived from the presentation session (000 §3.1). `complete` is not shown: it is the
 * moment the portal backend calls complete (flows.md step 5) and learns whether the user goes on to /authorize or to
 * identity verification.
 */
export type SessionPhase = 'waiting' | 'opened' | 'checking' | 'complete' | 'idv' | 'confirm' | 'expired' | 'failed';

export function phaseOf(status: string): SessionPhase {
  switch (status) {
    case 'CREATED':
    case 'PENDING': // 000 §3.1: an alias of CREATED
      return 'waiting';
    case 'INTERACTION_STARTED':
      return 'opened';
    case 'VERIFYING':
      return 'checking';
    case 'VERIFIED':
    case 'COMPLETED': // completed by auto-reconciliation or IDV: complete answers 200 (000 §4.1)
      return 'complete';
    case 'IDV_REQUIRED':
      return 'idv';
    case 'MATCH_CONFIRMATION_REQUIRED': // bridge README "Match confirmation": the holder picks their account
      return 'confirm';
    case 'EXPIRED':
      return 'expired';
    default:
      return 'failed';
  }
}

/** The state the page's script receives; `final` states stop the polling and offer "start again". */
export type PageState =
  | 'waiting'
  | 'opened'
  | 'declined'
  | 'checking'
  | 'verified'
  | 'idv'
  | 'confirm'
  | 'idv_pending'
  | 'expired'
  | 'failed'
  | 'lost';

export const PAGE_MESSAGES: Record<PageState, MessageKey> = {
  waiting: 'statusWaiting',
  opened: 'statusOpened',
  declined: 'statusDeclined',
  checking: 'statusChecking',
  verified: 'statusVerified',
  idv: 'statusIdvNeeded',
  confirm: 'statusConfirmNeeded',
  idv_pending: 'statusIdvPending',
  expired: 'statusExpired',
  failed: 'statusFailed',
  lost: 'statusLost',
};

export const FINAL_STATES: readonly PageState[] = ['expired', 'failed', 'lost'];

/**
 * While the session is open, a wallet's error response (bridge `lastRejection.check` `wallet_error`) is shown at once
 * as `declined`, not as a failure: anyone who sees the QR code can post one, so the session stays open (bridge README
 * "Rejected responses") and the page keeps following it; a valid response still signs in. Other refused responses
 * are not shown: a failure is shown only when the session is terminal (ERROR).
 */
export function openPhaseState(phase: 'waiting' | 'opened' | 'checking', lastRejectionCheck: string | null): PageState {
  return phase === 'opened' && lastRejectionCheck === 'wallet_error' ? 'declined' : phase;
}

/** The failed verification check the bridge reports (its `failure.check`), in words a person understands. */
export function failureMessage(check: string | null): MessageKey {
  switch (check) {
    case 'wallet_error':
      return 'failureWalletError';
    case 'issuer_trust':
      return 'failureIssuerTrust';
    case 'status':
      return 'failureStatus';
    case 'validity_period':
      return 'failureValidityPeriod';
    case 'dcql':
      return 'failureDcql';
    case 'replay':
      return 'failureReplay';
    default:
      return 'failureDefault';
  }
}
