import { randomUUID } from 'node:crypto';
import type { CreatedSession } from '../clients/bridge-client.js';
import type { CallContext } from '../clients/service-call.js';
import { errorRedirect, readAuthorizationParams } from '../domain/authorization-params.js';
import type { LoginTransaction } from '../transaction/login-transaction.js';
import type { PortalRuntime } from './runtime.js';

export type StartOutcome =
  /** The client or redirect URI cannot be trusted: an error page, never a redirect (RFC 6749 §4.1.2.1, RFC 9700 §4.11.2). */
  | { kind: 'error_page'; error: string; description: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'page'; tx: LoginTransaction; setCookie: string; session: CreatedSession; clientName: string };

/** Bound of the parameters' JSON, so that the cookie stays under the 4096 bytes browsers keep (RFC 6265 §6.1). */
const MAX_PARAMS_JSON = 2400;

/**
 * GET /signin (flows.md steps 1-2): the token service checks the relying party's request exactly as GET /authorize will;
 * a valid one gets a presentation session bound to it (client_id and code_challenge) and a login transaction.
 */
export async function startSignin(rt: PortalRuntime, ctx: CallContext, query: URLSearchParams): Promise<StartOutcome> {
  const { params, repeated, tooLong } = readAuthorizationParams(query);
  if (repeated === 'client_id' || repeated === 'redirect_uri') {
    return { kind: 'error_page', error: 'invalid_request', description: `${repeated} is repeated.` };
  }
  const verdict = await rt.tokenService.checkAuthorizationRequest(ctx, params as Record<string, string>);
  const iss = rt.options.tokenServiceIssuer;
  if (!verdict.valid) {
    if (!verdict.redirectUri) return { kind: 'error_page', error: verdict.error, description: verdict.description };
    return {
      kind: 'redirect',
      location: errorRedirect(verdict.redirectUri, {
        error: verdict.error,
        description: verdict.description,
        state: verdict.state,
        iss,
      }),
    };
  }
  const back = (description: string): StartOutcome => ({
    kind: 'redirect',
    location: errorRedirect(verdict.redirectUri, {
      error: 'invalid_request',
      description,
      state: params.state ?? null,
      iss,
    }),
  });
  if (repeated) return back(`${repeated} is repeated.`);
  if (tooLong || JSON.stringify(params).length > MAX_PARAMS_JSON)
    return back(`${tooLong ?? 'The request'} is too long.`);

  const id = randomUUID();
  const session = await rt.bridge.createSession(ctx, {
    oauthSessionId: id,
    clientId: verdict.clientId,
    codeChallenge: verdict.codeChallenge,
  });
  const now = Math.floor(rt.options.clock.now().getTime() / 1000);
  const tx: LoginTransaction = {
    id,
    tenantId: ctx.tenantId,
    sessionId: session.sessionId,
    params,
    createdAt: now,
    expiresAt: now + rt.options.transactionTtlSeconds,
  };
  // The relying party by its display name: the token service's, else the portal's configuration, else its id.
  const clientName = verdict.clientName ?? rt.options.clientDisplayNames[verdict.clientId] ?? verdict.clientId;
  return { kind: 'page', tx, setCookie: await rt.cookies.seal(tx), session, clientName };
}
