import type { ExecutionContext } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import { clientRedirect, type AuthorizationRequest } from '../domain/authorization-request.js';
import type { AuthorizeOutcome } from './authorize-outcome.js';
import { issueAuthorizationCode } from './issue-authorization-code.js';

const POLL_MS = 250;

/**
 * Wallet login (000 §4.4, flows.md step 7): waits, bounded, for the presentation session to reach COMPLETED,
 * then redeems it at the bridge for this very request (client_id and code_challenge): the bridge answers the
 * resolved identity once, within its short window, and only to the request the session was started for. Tokens
 * then carry acr `urn:<vendor>:oid4vp:vp`, amr [vp] and sub = the resolved user id.
 */
export async function completeWalletLogin(
  ctx: TokenServiceContext,
  cmd: ExecutionContext,
  request: AuthorizationRequest,
  sessionId: string,
): Promise<AuthorizeOutcome> {
  const iss = ctx.issuerFor(cmd.tenantId);
  const back = (error: string, description: string): AuthorizeOutcome => ({
    kind: 'redirect',
    location: clientRedirect(request.redirectUri, { error, error_description: description, state: request.state, iss }),
  });
  if (!ctx.wallet) return back('access_denied', 'Wallet login is not available.');
  const deadline = Date.now() + ctx.config.bridge.waitSeconds * 1000;
  for (;;) {
    const outcome = await ctx.wallet.redeem({
      tenantId: cmd.tenantId,
      sessionId,
      clientId: request.client.clientId,
      codeChallenge: request.codeChallenge,
      correlationId: cmd.correlationId,
    });
    if (outcome.kind === 'refused') return back('access_denied', 'The wallet session cannot be used for this request.');
    if (outcome.kind === 'redeemed') {
      const r = outcome.result;
      // The grant, its code and the execution's audit event commit together (issue 13 §7).
      const location = await cmd.unitOfWork((sql) =>
        issueAuthorizationCode(
          ctx,
          cmd.tenantId,
          sql,
          { ...request, clientId: request.client.clientId },
          {
            subject: r.userId,
            acr: ctx.walletAcr,
            amr: r.amr.includes('vp') ? r.amr : ['vp', ...r.amr],
            authTime: new Date(r.authenticatedAt),
            claims: r.claims,
          },
          request.credential,
        ),
      );
      return { kind: 'redirect', location };
    }
    if (Date.now() + POLL_MS > deadline) return back('access_denied', 'The wallet session did not complete in time.');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
