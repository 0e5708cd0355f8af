import type { MessageKey } from '../i18n/en.js';

/**
 * The `reason` of the bridge's redirect to {portal_url}/wallet/callback (000 §4.2 step 7). The spec names only
 * token_exchange_failed (§7: "values of the reason query parameter ... not shown"); the bridge's README ("Identity
 * verification", its `IDV_FAILURES`) lists the codes it sends: access_denied, token_exchange_failed,
 * id_token_invalid, missing_claim, session_expired, session_invalid, already_bound, provider_unavailable,
 * processing_failed, aborted, claims_mismatch (superseded and attempt_expired end an attempt but never reach the redirect; they are
 * mapped all the same). The other spellings and OAuth's own error codes (RFC 6749 §4.1.2.1) are kept for a bridge
 * that passes a provider's error through.
 */
const REASONS = new Map<string, MessageKey>(
  Object.entries({
    token_exchange_failed: 'reasonTokenExchangeFailed',
    access_denied: 'reasonAccessDenied',
    cancelled: 'reasonAccessDenied',
    canceled: 'reasonAccessDenied',
    user_cancelled: 'reasonAccessDenied',
    login_required: 'reasonAccessDenied',
    consent_required: 'reasonAccessDenied',
    expired: 'reasonExpired',
    session_expired: 'reasonExpired',
    state_expired: 'reasonExpired',
    attempt_expired: 'reasonExpired',
    session_invalid: 'reasonSessionInvalid',
    superseded: 'reasonSessionInvalid',
    aborted: 'reasonAborted',
    provider_unavailable: 'reasonProviderUnavailable',
    processing_failed: 'reasonProcessingFailed',
    already_bound: 'reasonAlreadyBound',
    binding_conflict: 'reasonAlreadyBound',
    missing_claim: 'reasonMissingClaim',
    claims_mismatch: 'reasonClaimsMismatch',
    missing_required_claim: 'reasonMissingClaim',
    invalid_state: 'reasonInvalidState',
    state_invalid: 'reasonInvalidState',
    state_reused: 'reasonInvalidState',
    id_token_invalid: 'reasonIdTokenInvalid',
    invalid_id_token: 'reasonIdTokenInvalid',
    provider_error: 'reasonProviderError',
    server_error: 'reasonProviderError',
    temporarily_unavailable: 'reasonProviderError',
  } satisfies Record<string, MessageKey>),
);

/** A reason code is shown to the user for support, so only a plain token is accepted. */
export const REASON_PATTERN = /^[a-z0-9_.-]{1,64}$/i;

export function callbackReasonMessage(reason: string | null): MessageKey {
  // A Map, not an object lookup: a reason such as `__proto__` or `constructor` must not find anything.
  return (reason && REASONS.get(reason.toLowerCase())) || 'reasonDefault';
}
