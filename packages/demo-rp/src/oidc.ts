import { decodeJwt } from 'jose';
import * as client from 'openid-client';

export interface OidcSettings {
  /** The token service's issuer URL (discovery at {issuer}/.well-known/openid-configuration). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  scope: string;
}

/** What the callback needs to check the answer: kept in the signed cookie between redirect and callback. */
export interface LoginTransaction {
  verifier: string;
  state: string;
  nonce: string;
  via: 'wallet' | 'institution';
}

const isLoopbackHttp = (url: string) => {
  const u = new URL(url);
  return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
};

/**
 * The relying party's side of the authorization code flow with openid-client: discovery (once, retried after a
 * failure so that the demo may start before the token service), PKCE S256, state and nonce (RFC 7636, OIDC Core
 * §3.1.2.1), and the code exchange with every check openid-client makes (state, iss, nonce, ID token signature).
 */
export class DemoOidcClient {
  private configuration: Promise<client.Configuration> | null = null;

  constructor(private readonly settings: OidcSettings) {}

  config(): Promise<client.Configuration> {
    // Plain http is allowed only on loopback, the development setting; anything else must be https.
    const execute = isLoopbackHttp(this.settings.issuer) ? [client.allowInsecureRequests] : [];
    this.configuration ??= client
      .discovery(new URL(this.settings.issuer), this.settings.clientId, this.settings.clientSecret, undefined, {
        execute,
      })
      .catch((error: unknown) => {
        this.configuration = null;
        throw error;
      });
    return this.configuration;
  }

  /** A new authorization request: the URL of the token service's /authorize and the transaction to remember. */
  async authorizationRequest(via: LoginTransaction['via']): Promise<{ url: URL; tx: LoginTransaction }> {
    const config = await this.config();
    const verifier = client.randomPKCECodeVerifier();
    const tx: LoginTransaction = { verifier, state: client.randomState(), nonce: client.randomNonce(), via };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUri,
      scope: this.settings.scope,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: tx.state,
      nonce: tx.nonce,
    });
    return { url, tx };
  }

  /** The callback: exchanges the code and returns the ID token claims and the access token. */
  async exchange(currentUrl: URL, tx: LoginTransaction) {
    const config = await this.config();
    const tokens = await client.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: tx.verifier,
      expectedState: tx.state,
      expectedNonce: tx.nonce,
      idTokenExpected: true,
    });
    return {
      idTokenClaims: (tokens.claims() ?? {}) as Record<string, unknown>,
      accessToken: tokens.access_token,
      scope: tokens.scope ?? null,
    };
  }
}

/** The claims of a JWT access token (RFC 9068), decoded for display only: the demo shows, it does not trust. */
export function decodeJwtPayload(token: string): Record<string, unknown> | null {
  try {
    return decodeJwt(token);
  } catch {
    return null;
  }
}

export function describeError(error: unknown): { code: string; description: string } {
  if (error instanceof client.AuthorizationResponseError)
    return { code: error.error, description: error.error_description ?? '' };
  if (error instanceof client.ResponseBodyError)
    return { code: error.error, description: error.error_description ?? '' };
  if (error instanceof client.ClientError) return { code: error.code ?? 'client_error', description: error.message };
  return { code: 'unexpected_error', description: error instanceof Error ? error.message : 'The sign-in failed.' };
}
