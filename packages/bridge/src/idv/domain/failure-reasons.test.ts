import { describe, expect, it } from 'vitest';
import { UpstreamLoginError } from '@tessera/platform';
import { IDV_FAILURES, reasonOfUpstreamError } from './failure-reasons.js';
import { portalCallbackUrl } from './portal-redirect.js';

describe('IDV failure reasons', () => {
  it('maps the upstream client’s failures to the redirect reasons', () => {
    expect(reasonOfUpstreamError(new UpstreamLoginError('provider_error', 'x', 'access_denied'))).toBe('access_denied');
    expect(reasonOfUpstreamError(new UpstreamLoginError('provider_unreachable', 'x'))).toBe('provider_unavailable');
    expect(reasonOfUpstreamError(new UpstreamLoginError('id_token_invalid', 'x'))).toBe('id_token_invalid');
    expect(reasonOfUpstreamError(new UpstreamLoginError('token_exchange_failed', 'x'))).toBe('token_exchange_failed');
  });

  it('takes the platform classifier’s step as it is, never reading error messages', () => {
    // A message that reads like an ID token problem does not turn a refused exchange into another reason.
    const refused = new UpstreamLoginError('token_exchange_failed', 'x', 'invalid_grant', {
      cause: new Error('JWT signature verification failed'),
    });
    expect(reasonOfUpstreamError(refused)).toBe('token_exchange_failed');
  });

  it('every reason has a message, and messages name no value', () => {
    for (const [reason, message] of Object.entries(IDV_FAILURES)) {
      expect(reason).toMatch(/^[a-z_]+$/);
      expect(message.length).toBeGreaterThan(10);
    }
  });

  it('builds the portal callback URL of 000 §4.2 (7)', () => {
    const id = '6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5';
    expect(portalCallbackUrl('https://portal.example/', id, { status: 'success' })).toBe(
      `https://portal.example/wallet/callback?session=${id}&status=success`,
    );
    expect(portalCallbackUrl('https://portal.example/base', id, { status: 'error', reason: 'already_bound' })).toBe(
      `https://portal.example/base/wallet/callback?session=${id}&status=error&reason=already_bound`,
    );
  });
});
