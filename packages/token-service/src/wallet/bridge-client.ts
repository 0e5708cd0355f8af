import { AppError } from '@tessera/platform';

/** What the bridge answers when a completed wallet session is redeemed for an authorization request (flows.md step 7). */
export interface WalletLoginResult {
  userId: string;
  claims: Record<string, unknown>;
  acr: string;
  amr: string[];
  authenticatedAt: string;
}

export type RedeemOutcome =
  { kind: 'redeemed'; result: WalletLoginResult } | { kind: 'pending' } | { kind: 'refused'; reason: string };

/** The bridge, as the token service needs it. */
export interface WalletSessionRedeemer {
  redeem(input: {
    tenantId: string;
    sessionId: string;
    clientId: string;
    codeChallenge: string;
    correlationId: string;
  }): Promise<RedeemOutcome>;
}

export interface BridgeClientOptions {
  url: string;
  timeoutSeconds: number;
  /** A service token for the bridge, minted by the token service itself (scope bridge:redeem). */
  serviceToken(tenantId: string): Promise<string>;
}

/**
 * The service-to-service call to the bridge: `POST /auth/oid4vp/sessions/{id}/redeem` with a bearer token of
 * the token service. A session still in progress answers 409 with its status; a session that is not
 * redeemable by this request answers 404/409/410.
 */
export class HttpBridgeClient implements WalletSessionRedeemer {
  constructor(private readonly options: BridgeClientOptions) {}

  async redeem(input: {
    tenantId: string;
    sessionId: string;
    clientId: string;
    codeChallenge: string;
    correlationId: string;
  }): Promise<RedeemOutcome> {
    let res: Response;
    try {
      res = await fetch(`${this.options.url}/auth/oid4vp/sessions/${encodeURIComponent(input.sessionId)}/redeem`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await this.options.serviceToken(input.tenantId)}`,
          'content-type': 'application/json',
          'x-correlation-id': input.correlationId,
        },
        body: JSON.stringify({ clientId: input.clientId, codeChallenge: input.codeChallenge }),
        signal: AbortSignal.timeout(this.options.timeoutSeconds * 1000),
      });
    } catch (cause) {
      throw new AppError('service_unavailable', 'The wallet bridge is unreachable.', { cause });
    }
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.status === 200) return { kind: 'redeemed', result: body as unknown as WalletLoginResult };
    if (
      res.status === 409 &&
      typeof body.status === 'string' &&
      !['COMPLETED', 'EXPIRED', 'ERROR'].includes(body.status)
    )
      return { kind: 'pending' };
    if (res.status >= 500) throw new AppError('service_unavailable', 'The wallet bridge failed.');
    return { kind: 'refused', reason: typeof body.error === 'string' ? body.error : `status_${res.status}` };
  }
}
