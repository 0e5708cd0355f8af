import { randomToken } from '../crypto/random-token.js';
import type { DpopContext } from '../dpop/dpop-types.js';
import { createPkce } from '../pkce/create-pkce.js';
import { DEFAULT_PKCE_METHODS, type PkceMethod } from '../pkce/pkce-types.js';
import { checkRequestUrl } from './check-request-url.js';
import type { AuthorizationRequest, AuthorizationServerMetadata } from './client-types.js';
import { OAuthClientError } from './oauth-client-error.js';

export interface InitiateAuthorizationOptions {
  metadata: AuthorizationServerMetadata;
  clientId: string;
  redirectUri: string;
  scope: string;
  /** With a context, the request carries `dpop_jkt` so the code is bound to the DPoP key (RFC 9449 §10). */
  dpopContext?: DpopContext | null;
  /** Further request parameters (e.g. `prompt`, `resource`); they may not replace the ones set here. */
  additionalParameters?: Record<string, string>;
  /** Default S256 only. */
  allowedPkceMethods?: readonly PkceMethod[];
  allowInsecureRequests?: boolean;
}

const RESERVED = new Set([
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'dpop_jkt',
]);

function choosePkceMethods(
  metadata: AuthorizationServerMetadata,
  allowed: readonly PkceMethod[],
): readonly PkceMethod[] {
  const supported = metadata.code_challenge_methods_supported;
  if (!Array.isArray(supported)) return allowed;
  const usable = allowed.filter((method) => supported.includes(method));
  if (usable.length === 0) {
    throw new OAuthClientError('metadata_error', 'the authorization server supports none of the allowed PKCE methods');
  }
  return usable;
}

/**
 * Builds an authorization request of the code flow (spec 002 §4.2; RFC 6749 §4.1.1, RFC 7636 §4.3): response_type
 * code, client_id, redirect_uri, scope, a fresh `state` (RFC 9700 §4.7.1), a `nonce` when the scope includes
 * openid, `code_challenge` and `code_challenge_method` (S256 unless only `plain` is both allowed and supported),
 * and `dpop_jkt` with a DPoP context. Keep the returned pkceData, state and nonce for the callback.
 */
export async function initiateAuthorization(options: InitiateAuthorizationOptions): Promise<AuthorizationRequest> {
  const endpoint = options.metadata.authorization_endpoint;
  if (endpoint === undefined) throw new OAuthClientError('metadata_error', 'metadata has no authorization_endpoint');
  const { url } = checkRequestUrl(endpoint, 'authorization_endpoint', options.allowInsecureRequests);
  for (const name of Object.keys(options.additionalParameters ?? {})) {
    if (RESERVED.has(name)) throw new TypeError(`additionalParameters may not set "${name}"`);
  }

  const allowed = options.allowedPkceMethods ?? DEFAULT_PKCE_METHODS;
  const pkceData = createPkce(null, choosePkceMethods(options.metadata, allowed));
  const state = randomToken(32);
  const nonce = options.scope.split(' ').includes('openid') ? randomToken(32) : null;

  for (const [name, value] of Object.entries(options.additionalParameters ?? {})) url.searchParams.set(name, value);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', options.clientId);
  url.searchParams.set('redirect_uri', options.redirectUri);
  url.searchParams.set('scope', options.scope);
  url.searchParams.set('state', state);
  if (nonce !== null) url.searchParams.set('nonce', nonce);
  url.searchParams.set('code_challenge', pkceData.codeChallenge);
  url.searchParams.set('code_challenge_method', pkceData.codeChallengeMethod);
  if (options.dpopContext) url.searchParams.set('dpop_jkt', options.dpopContext.jwkThumbprint);

  return { authorizationUrl: url.href, pkceData, state, nonce };
}
