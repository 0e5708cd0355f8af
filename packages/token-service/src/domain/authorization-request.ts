import type { Client, ClientRegistry } from '../clients/client-registry.js';
import type { OAuthErrorCode } from './oauth-error.js';
import { redirectUriMatches } from './redirect-uri.js';
import { parseScope, formatScope } from './scopes.js';
import { isS256Challenge } from './pkce.js';
import { JWK_THUMBPRINT } from './dpop-binding.js';
import type { CredentialAuthorization } from '../oid4vci/credential-authorization.js';

/** A validated authorization request (000 §4.4 GET /authorize parameters). */
export interface AuthorizationRequest {
  client: Client;
  redirectUri: string;
  scope: string;
  state: string | null;
  nonce: string | null;
  codeChallenge: string;
  codeChallengeMethod: 'S256';
  loginHint: string | null;
  dpopJkt: string | null;
  /** OpenID4VCI 1.0 §5.1: the issuance session and configurations this request asks to authorize, if any. */
  credential?: CredentialAuthorization;
}

export type AuthorizationRequestCheck =
  | { kind: 'ok'; request: AuthorizationRequest }
  /** The client or redirect URI cannot be trusted: never redirect (RFC 6749 §4.1.2.1, RFC 9700 §4.11.2). */
  | { kind: 'no_redirect'; error: OAuthErrorCode; description: string }
  /** Every other error goes back to the client's redirect URI with state and iss (RFC 6749 §4.1.2.1, RFC 9207). */
  | { kind: 'redirect_error'; redirectUri: string; state: string | null; error: OAuthErrorCode; description: string };

const SINGLE = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'login_hint',
  'prompt',
  'dpop_jkt',
];

/**
 * Checks an authorization request in the order of RFC 6749 §4.1.2.1: first what decides whether the error may be
 * sent to the redirect URI (client_id, redirect_uri), then the rest.
 */
export function checkAuthorizationRequest(
  params: URLSearchParams,
  tenantId: string,
  clients: ClientRegistry,
  /** `allowMissingScope`: a credential request (OpenID4VCI 1.0 §5.1) may ask by authorization_details alone. */
  options: { dpopEnabled: boolean; allowMissingScope?: boolean },
): AuthorizationRequestCheck {
  const clientId = params.get('client_id');
  if (!clientId || params.getAll('client_id').length > 1)
    return { kind: 'no_redirect', error: 'invalid_request', description: 'client_id is missing or repeated.' };
  const client = clients.find(tenantId, clientId);
  if (!client) return { kind: 'no_redirect', error: 'invalid_request', description: 'The client is unknown.' };
  const redirectUri = params.get('redirect_uri');
  // The spec makes redirect_uri required (000 §4.4), so it is never inferred from the registration.
  if (!redirectUri || params.getAll('redirect_uri').length > 1)
    return { kind: 'no_redirect', error: 'invalid_request', description: 'redirect_uri is missing or repeated.' };
  const loopbackPortMayVary = client.applicationType === 'native' || client.secret === null;
  if (!redirectUriMatches(client.redirectUris, redirectUri, { loopbackPortMayVary }))
    return {
      kind: 'no_redirect',
      error: 'invalid_request',
      description: 'redirect_uri is not registered for this client.',
    };

  const state = params.get('state');
  const fail = (error: OAuthErrorCode, description: string): AuthorizationRequestCheck => ({
    kind: 'redirect_error',
    redirectUri,
    state,
    error,
    description,
  });
  for (const name of SINGLE) if (params.getAll(name).length > 1) return fail('invalid_request', `${name} is repeated.`);
  // OIDC Core §3.1.2.6: request objects are not offered (discovery says so), and each has its own error code.
  if (params.has('request')) return fail('request_not_supported', 'The request parameter is not supported.');
  if (params.has('request_uri'))
    return fail('request_uri_not_supported', 'The request_uri parameter is not supported.');
  const responseType = params.get('response_type');
  if (!responseType) return fail('invalid_request', 'response_type is missing.');
  if (responseType !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
  if (!client.grantTypes.includes('authorization_code'))
    return fail('unauthorized_client', 'The client may not use the authorization code grant.');
  const scopeParam = params.get('scope');
  if (!scopeParam && !options.allowMissingScope) return fail('invalid_scope', 'scope is missing.');
  let scopes = scopeParam ? parseScope(scopeParam) : [];
  if (scopes.some((s) => !client.scopes.includes(s)))
    return fail('invalid_scope', 'A requested scope is not allowed for this client.');
  // offline_access without the refresh_token grant is ignored (OIDC Core §11).
  if (!client.grantTypes.includes('refresh_token')) scopes = scopes.filter((s) => s !== 'offline_access');
  const codeChallenge = params.get('code_challenge');
  const method = params.get('code_challenge_method');
  if (!codeChallenge) return fail('invalid_request', 'code_challenge is required (PKCE).');
  if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256.');
  if (!isS256Challenge(codeChallenge)) return fail('invalid_request', 'code_challenge is malformed.');
  if (params.get('prompt')?.split(' ').includes('none')) return fail('login_required', 'The user must log in.');
  const dpopJkt = params.get('dpop_jkt');
  if (dpopJkt !== null && !options.dpopEnabled) return fail('invalid_request', 'dpop_jkt is not supported.');
  // RFC 9449 §10: dpop_jkt is the JWK SHA-256 thumbprint of the key the code will be bound to.
  if (dpopJkt !== null && !JWK_THUMBPRINT.test(dpopJkt)) return fail('invalid_request', 'dpop_jkt is malformed.');
  return {
    kind: 'ok',
    request: {
      client,
      redirectUri,
      scope: formatScope(scopes),
      state,
      nonce: params.get('nonce'),
      codeChallenge,
      codeChallengeMethod: 'S256',
      loginHint: params.get('login_hint'),
      dpopJkt,
    },
  };
}

/** The redirect back to the client (RFC 6749 §4.1.2), with `iss` (RFC 9207). */
export function clientRedirect(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return url.href;
}
