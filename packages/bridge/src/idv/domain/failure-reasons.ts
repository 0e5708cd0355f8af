import type { UpstreamFailure, UpstreamLoginError } from '@tessera/platform';

/**
 * Why an IDV attempt ended in ERROR (000 §3.2, §7). The code is the `reason` of the browser's redirect to the
 * portal (000 §7 leaves its values open, README lists them); the message is the reconciliation's errorMessage.
 * Both name what failed, never a value of the login.
 */
export const IDV_FAILURES = {
  access_denied: 'The identity provider refused the sign-in, or it was cancelled.',
  token_exchange_failed: 'The code exchange with the identity provider failed.',
  id_token_invalid: 'The ID token from the identity provider is not valid.',
  missing_claim: 'The identity provider did not release a required claim.',
  claims_mismatch: 'The credential in the wallet names another person than the institutional login.',
  session_expired: 'The presentation session expired before the identity verification completed.',
  session_invalid: 'The presentation session is no longer waiting for identity verification.',
  already_bound: 'This institutional identity is already bound to a different wallet.',
  provider_unavailable: 'The identity provider did not answer in time.',
  processing_failed: 'The identity provider’s answer could not be processed; start a new attempt.',
  aborted: 'The identity verification was cancelled.',
  superseded: 'A newer identity verification attempt replaced this one.',
  attempt_expired: 'The identity verification attempt expired before the identity provider answered.',
} as const;

export type IdvFailureReason = keyof typeof IDV_FAILURES;

export const failureMessage = (reason: IdvFailureReason): string => IDV_FAILURES[reason];

/** The failure of the platform's upstream client, as an IDV reason (UpstreamLoginError.reason). */
export function reasonOfUpstreamFailure(failure: UpstreamFailure): IdvFailureReason {
  switch (failure) {
    case 'provider_error':
      // An error answer of the provider, the person's Cancel included (error=access_denied): 000 §3.2 "provider
      // error or user cancel".
      return 'access_denied';
    case 'token_exchange_failed':
      return 'token_exchange_failed';
    case 'id_token_invalid':
      return 'id_token_invalid';
    case 'provider_unreachable':
      return 'provider_unavailable';
  }
}

/**
 * The reason of a failed institutional login: the platform's classifier (`classifyUpstreamError`, by error class,
 * code, HTTP status and OAuth error) already named the step that failed, an ID token check included.
 */
export function reasonOfUpstreamError(error: UpstreamLoginError): IdvFailureReason {
  return reasonOfUpstreamFailure(error.reason);
}
