import * as client from 'openid-client';
import { AppError } from '../errors/index.js';
import { classifyUpstreamError, type UpstreamFailure } from './classify-upstream-error.js';

/**
 * An institutional OpenID provider seen as a client (openid-client): used by the token service for federated
 * login and by the bridge for identity verification (000 §4.2, §4.4). Authorization code flow with PKCE S256,
 * state and nonce; the ID token is verified by openid-client (signature against the provider's key set, iss,
 * aud, exp, nonce). Calls are bounded by `timeoutSeconds`.
 */
export interface UpstreamProviderSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  timeoutSeconds: number;
}

export interface UpstreamLoginStart {
  authorizationUrl: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface UpstreamLoginResult {
  /** Verified ID token claims, merged with UserInfo claims when `userinfo` was asked for. */
  claims: Record<string, unknown>;
  subject: string;
  issuer: string;
  acr: string | undefined;
}

export type { UpstreamFailure };

/** Thrown by finishLogin; `reason` is safe to show (it names the step, not the data). */
export class UpstreamLoginError extends Error {
  constructor(
    readonly reason: UpstreamFailure,
    message: string,
    readonly providerError?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'UpstreamLoginError';
  }
}

const isLoopbackHttp = (issuer: string) => /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(issuer);

export class UpstreamOidcClient {
  private configuration: Promise<client.Configuration> | undefined;

  constructor(private readonly settings: UpstreamProviderSettings) {}

  get issuer(): string {
    return this.settings.issuer;
  }

  private async config(): Promise<client.Configuration> {
    if (!this.configuration) {
      const pending = client
        .discovery(
          new URL(this.settings.issuer),
          this.settings.clientId,
          undefined,
          client.ClientSecretBasic(this.settings.clientSecret),
          {
            timeout: this.settings.timeoutSeconds,
            // Plain http only for a provider on loopback (development profile, tests).
            ...(isLoopbackHttp(this.settings.issuer) ? { execute: [client.allowInsecureRequests] } : {}),
          },
        )
        .then((c) => {
          c.timeout = this.settings.timeoutSeconds;
          // Verify the ID token's signature against the provider's key set even when it comes straight from the
          // token endpoint (openid-client 6 skips it there by default).
          client.enableNonRepudiationChecks(c);
          return c;
        });
      this.configuration = pending;
      // A failed discovery is retried on the next login instead of being cached.
      pending.catch(() => {
        if (this.configuration === pending) this.configuration = undefined;
      });
    }
    return this.configuration;
  }

  async startLogin(redirectUri: string, extra: Record<string, string> = {}): Promise<UpstreamLoginStart> {
    let config: client.Configuration;
    try {
      config = await this.config();
    } catch (cause) {
      throw new AppError('service_unavailable', 'The identity provider is unreachable.', { cause });
    }
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: this.settings.scopes.join(' '),
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      ...extra,
    });
    return { authorizationUrl: url.href, state, nonce, codeVerifier };
  }

  /**
   * Exchanges the code server to server with the stored PKCE verifier and client credentials, and verifies the
   * ID token. `callbackQuery` is the query string the provider sent to `redirectUri`.
   */
  async finishLogin(input: {
    redirectUri: string;
    callbackQuery: URLSearchParams;
    state: string;
    nonce: string;
    codeVerifier: string;
    userinfo?: boolean;
  }): Promise<UpstreamLoginResult> {
    const providerError = input.callbackQuery.get('error');
    if (providerError) {
      throw new UpstreamLoginError(
        'provider_error',
        'The identity provider returned an error.',
        providerError.slice(0, 64),
      );
    }
    let config: client.Configuration;
    try {
      config = await this.config();
    } catch (cause) {
      throw new UpstreamLoginError('provider_unreachable', 'The identity provider is unreachable.', undefined, {
        cause,
      });
    }
    const currentUrl = new URL(input.redirectUri);
    currentUrl.search = input.callbackQuery.toString();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: input.codeVerifier,
        expectedState: input.state,
        expectedNonce: input.nonce,
        idTokenExpected: true,
      });
    } catch (cause) {
      throw classify(cause);
    }
    const idClaims = tokens.claims();
    if (!idClaims) throw new UpstreamLoginError('id_token_invalid', 'The identity provider returned no ID token.');
    let claims: Record<string, unknown> = { ...idClaims };
    if (input.userinfo) {
      try {
        claims = { ...(await client.fetchUserInfo(config, tokens.access_token, idClaims.sub)), ...claims };
      } catch {
        // UserInfo is optional (000 §4.2 step 4): the ID token claims stand on their own.
      }
    }
    return {
      claims,
      subject: idClaims.sub,
      issuer: idClaims.iss,
      acr: typeof idClaims.acr === 'string' ? idClaims.acr : undefined,
    };
  }
}

const MESSAGES: Record<UpstreamFailure, string> = {
  provider_error: 'The identity provider returned an error.',
  token_exchange_failed: 'The code exchange with the identity provider failed.',
  id_token_invalid: 'The ID token from the identity provider is not valid.',
  provider_unreachable: 'The identity provider did not answer in time.',
};

function classify(cause: unknown): UpstreamLoginError {
  const { failure, providerError } = classifyUpstreamError(cause);
  const message =
    failure === 'token_exchange_failed' && providerError !== undefined
      ? 'The identity provider refused the code exchange.'
      : MESSAGES[failure];
  return new UpstreamLoginError(failure, message, providerError?.slice(0, 64), { cause });
}
