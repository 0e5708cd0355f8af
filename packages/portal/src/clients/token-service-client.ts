import { AppError } from '@tessera/platform';
import type { PortalOptions } from '../options.js';
import { str } from './http.js';
import { authorizedCall, type CallContext } from './service-call.js';
import type { ServiceTokenSource } from './service-token.js';

/** The token service's verdict on an authorization request (its AuthorizationRequestVerdict). */
export type RequestVerdict =
  | {
      valid: true;
      clientId: string;
      /** The client's display name (`clientName` or `client_name` of the check answer), when the token service says it. */
      clientName: string | null;
      redirectUri: string;
      codeChallenge: string;
    }
  | { valid: false; error: string; description: string; redirectUri: string | null; state: string | null };

/**
 * `POST /internal/v1/authorization-requests/check` of the token service (its internal port): is this request one
 * that GET /authorize will accept, and if not, may the error go back to the redirect URI (RFC 6749 §4.1.2.1)?
 * Asking before the wallet session starts means the user never scans a QR for a request that must fail.
 */
export class TokenServiceClient {
  constructor(
    private readonly options: PortalOptions,
    private readonly tokens: ServiceTokenSource,
  ) {}

  async checkAuthorizationRequest(ctx: CallContext, params: Record<string, string>): Promise<RequestVerdict> {
    const url = `${this.options.tokenServiceUrl}/internal/v1/authorization-requests/check`;
    const res = await authorizedCall(this.options, this.tokens, ctx, 'token service', url, {
      method: 'POST',
      json: params,
    });
    const b = res.body;
    if (res.status === 200 && b.valid === true && str(b.clientId) && str(b.redirectUri) && str(b.codeChallenge)) {
      return {
        valid: true,
        clientId: str(b.clientId)!,
        clientName: str(b.clientName) ?? str(b.client_name) ?? null,
        redirectUri: str(b.redirectUri)!,
        codeChallenge: str(b.codeChallenge)!,
      };
    }
    if (res.status === 200 && b.valid === false && str(b.error)) {
      return {
        valid: false,
        error: str(b.error)!,
        description: str(b.error_description) ?? '',
        redirectUri: str(b.redirectUri),
        state: str(b.state),
      };
    }
    // A 400 here is the check's own schema refusing the parameters (too many, too long): not redirectable.
    if (res.status === 400)
      return {
        valid: false,
        error: 'invalid_request',
        description: 'The authorization request is malformed.',
        redirectUri: null,
        state: null,
      };
    throw new AppError(
      'service_unavailable',
      `The token service check answered ${res.status} (${str(b.error) ?? 'no error code'}).`,
    );
  }
}
