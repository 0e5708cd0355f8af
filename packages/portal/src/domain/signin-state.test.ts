import { describe, expect, it } from 'vitest';
import { callbackReasonMessage, REASON_PATTERN } from './callback-reasons.js';
import { FINAL_STATES, failureMessage, openPhaseState, phaseOf } from './signin-state.js';

describe('the sign-in page follows the session (000 §3.1)', () => {
  it.each([
    ['CREATED', 'waiting'],
    ['PENDING', 'waiting'],
    ['INTERACTION_STARTED', 'opened'],
    ['VERIFYING', 'checking'],
    ['VERIFIED', 'complete'],
    ['COMPLETED', 'complete'],
    ['IDV_REQUIRED', 'idv'],
    ['MATCH_CONFIRMATION_REQUIRED', 'confirm'],
    ['EXPIRED', 'expired'],
    ['ERROR', 'failed'],
    ['SOMETHING_NEW', 'failed'],
  ])('%s → %s', (status, phase) => {
    expect(phaseOf(status)).toBe(phase);
  });

  it('names the failed check in words, with a default for checks it does not know', () => {
    expect(failureMessage('wallet_error')).toBe('failureWalletError');
    expect(failureMessage('issuer_trust')).toBe('failureIssuerTrust');
    expect(failureMessage('status')).toBe('failureStatus');
    expect(failureMessage('validity_period')).toBe('failureValidityPeriod');
    expect(failureMessage('dcql')).toBe('failureDcql');
    expect(failureMessage('replay')).toBe('failureReplay');
    expect(failureMessage('signature')).toBe('failureDefault');
    expect(failureMessage(null)).toBe('failureDefault');
  });
});

describe('callback reasons (000 §4.2 step 7)', () => {
  it('maps the known codes, case-insensitively, and anything else to the default', () => {
    expect(callbackReasonMessage('token_exchange_failed')).toBe('reasonTokenExchangeFailed');
    expect(callbackReasonMessage('ACCESS_DENIED')).toBe('reasonAccessDenied');
    expect(callbackReasonMessage('cancelled')).toBe('reasonAccessDenied');
    expect(callbackReasonMessage('session_expired')).toBe('reasonExpired');
    expect(callbackReasonMessage('already_bound')).toBe('reasonAlreadyBound');
    expect(callbackReasonMessage('missing_claim')).toBe('reasonMissingClaim');
    expect(callbackReasonMessage('id_token_invalid')).toBe('reasonIdTokenInvalid');
    expect(callbackReasonMessage('provider_unavailable')).toBe('reasonProviderUnavailable');
    expect(callbackReasonMessage('session_invalid')).toBe('reasonSessionInvalid');
    expect(callbackReasonMessage('processing_failed')).toBe('reasonProcessingFailed');
    expect(callbackReasonMessage('aborted')).toBe('reasonAborted');
    expect(callbackReasonMessage('__proto__')).toBe('reasonDefault');
    expect(callbackReasonMessage('constructor')).toBe('reasonDefault');
    expect(callbackReasonMessage(null)).toBe('reasonDefault');
  });

  it('shows only plain tokens as a reference', () => {
    expect(REASON_PATTERN.test('token_exchange_failed')).toBe(true);
    expect(REASON_PATTERN.test('<b>x</b>')).toBe(false);
    expect(REASON_PATTERN.test('x'.repeat(65))).toBe(false);
  });

  it("shows a wallet's refusal at once while the session stays open, and no other refused response", () => {
    expect(openPhaseState('opened', 'wallet_error')).toBe('declined');
    expect(FINAL_STATES).not.toContain('declined');
    expect(openPhaseState('opened', 'decryption')).toBe('opened');
    expect(openPhaseState('opened', null)).toBe('opened');
    expect(openPhaseState('checking', 'wallet_error')).toBe('checking');
  });
});
