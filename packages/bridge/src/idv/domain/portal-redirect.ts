import type { IdvFailureReason } from './failure-reasons.js';

/**
 * 000 §4.2 (7): where the callback sends the browser, `{portal_url}/wallet/callback` with `session` and `status`
 * (`success`, or `error` with `reason`). Only the presentation session id and a reason code travel: never a claim,
 * a code or the state.
 */
export function portalCallbackUrl(
  portalUrl: string,
  sessionId: string,
  outcome: { status: 'success' } | { status: 'error'; reason: IdvFailureReason },
): string {
  const url = new URL(`${portalUrl.replace(/\/+$/, '')}/wallet/callback`);
  url.searchParams.set('session', sessionId);
  url.searchParams.set('status', outcome.status);
  if (outcome.status === 'error') url.searchParams.set('reason', outcome.reason);
  return url.href;
}
