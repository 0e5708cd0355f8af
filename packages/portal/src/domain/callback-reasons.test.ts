import { describe, expect, it } from 'vitest';
import { IDV_FAILURES } from '@tessera/bridge';
import { LANGUAGES, translator } from '../i18n/negotiate.js';
import { callbackReasonMessage } from './callback-reasons.js';

/**
 * Every reason the real bridge can put on its redirect to /wallet/callback (000 §4.2 step 7; bridge README "Identity
 * verification", exported as IDV_FAILURES) has its own plain sentence in every language, never the generic one.
 */
describe('the bridge’s IDV reason codes in plain words', () => {
  const codes = Object.keys(IDV_FAILURES);

  it('covers the codes of the bridge README', () => {
    expect(codes).toEqual(
      expect.arrayContaining([
        'access_denied',
        'token_exchange_failed',
        'id_token_invalid',
        'missing_claim',
        'session_expired',
        'session_invalid',
        'already_bound',
        'provider_unavailable',
        'processing_failed',
        'aborted',
      ]),
    );
  });

  it.each(Object.keys(IDV_FAILURES))('%s has its own sentence in English and German', (code) => {
    const key = callbackReasonMessage(code);
    expect(key).not.toBe('reasonDefault');
    for (const language of LANGUAGES) {
      const t = translator(language);
      expect(t(key)).not.toBe(t('reasonDefault'));
      expect(t(key)).toMatch(/^[A-ZÄÖÜ].*\.$/);
    }
  });

  it('names the new codes as a person would understand them', () => {
    const en = translator('en');
    const de = translator('de');
    expect(en(callbackReasonMessage('provider_unavailable'))).toBe(
      'Your institution’s sign-in service could not be reached. Please try again in a moment.',
    );
    expect(de(callbackReasonMessage('provider_unavailable'))).toBe(
      'Der Anmeldedienst Ihrer Einrichtung war nicht erreichbar. Bitte versuchen Sie es gleich noch einmal.',
    );
    expect(en(callbackReasonMessage('aborted'))).toBe('The identity verification was cancelled.');
    expect(de(callbackReasonMessage('aborted'))).toBe('Die Identitätsprüfung wurde abgebrochen.');
    expect(en(callbackReasonMessage('processing_failed'))).toBe(
      'The answer from your institution could not be processed. Please start again.',
    );
    expect(en(callbackReasonMessage('session_invalid'))).toContain('can no longer be finished');
    expect(de(callbackReasonMessage('session_invalid'))).toContain('kann nicht mehr abgeschlossen werden');
  });
});
