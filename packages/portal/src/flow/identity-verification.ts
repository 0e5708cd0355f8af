import type { CallContext } from '../clients/service-call.js';
import type { LoginTransaction } from '../transaction/login-transaction.js';
import { completeSignin, EXPIRED, LOST, type StatusAnswer } from './read-signin-status.js';
import type { PortalRuntime } from './runtime.js';

export type InitiateOutcome = { kind: 'redirect'; location: string } | { kind: 'expired' } | { kind: 'not_possible' };

/**
 * POST /signin/verify-identity (flows.md step 5', 000 §4.2): the bridge starts an OIDC login at the institutional
 * provider and answers its authorization URL, where the browser goes next.
 */
export async function startIdentityVerification(
  rt: PortalRuntime,
  ctx: CallContext,
  tx: LoginTransaction,
): Promise<InitiateOutcome> {
  const initiated = await rt.bridge.initiateIdv(ctx, tx.sessionId);
  if (initiated.kind === 'ok') return { kind: 'redirect', location: initiated.value.authorizationUrl };
  if (initiated.kind === 'expired' || initiated.kind === 'not_found') return { kind: 'expired' };
  // 409: the session is not VERIFIED or IDV_REQUIRED (000 §3.2), e.g. it is still waiting for the wallet.
  return { kind: 'not_possible' };
}

/**
 * GET /api/signin/verification-status (flows.md step 7'): back from the institution, the IDV status (000 §4.2) is
 * followed; COMPLETED means complete answers 200 now, and the sign-in goes on to /authorize.
 */
export async function readVerificationStatus(
  rt: PortalRuntime,
  ctx: CallContext,
  tx: LoginTransaction | null,
  pageTx: string | undefined,
): Promise<StatusAnswer> {
  if (!tx || tx.id !== pageTx) return LOST;
  const idv = await rt.bridge.idvStatus(ctx, tx.sessionId);
  if (idv.kind !== 'ok') return EXPIRED;
  switch (idv.value.reconciliationStatus) {
    case 'COMPLETED': {
      const answer = await completeSignin(rt, ctx, tx);
      // Still 202 after a completed verification: the bridge did not bind the identity, so this sign-in cannot end well.
      return answer.state === 'idv' ? { state: 'failed', reason: 'reasonDefault', final: true } : answer;
    }
    case 'ERROR':
      // errorMessage is the bridge's text for operators; the user gets a plain sentence.
      return { state: 'failed', reason: 'reasonDefault', final: true };
    default:
      return { state: 'idv_pending', final: false };
  }
}
