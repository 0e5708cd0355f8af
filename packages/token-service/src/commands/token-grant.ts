import { Oauth2ServerErrorResponseError } from '@openid4vc/oauth2';
import type { TokenServiceContext } from '../context.js';
import { isOAuthErrorCode, oauthError } from '../domain/oauth-error.js';
import { isCredentialGrant, PRE_AUTHORIZED_CODE_GRANT, withoutResource } from '../oid4vci/pre-authorized-client.js';
import type { RequestHeaders } from './client-request.js';

/** The grant of a token request (RFC 6749 §4.1.3, §4.4, §6; OpenID4VCI 1.0 §6.1), as the token endpoint dispatches it. */
export type TokenGrant =
  | { grantType: 'client_credentials' }
  | { grantType: 'authorization_code'; code: string }
  | { grantType: 'refresh_token'; refreshToken: string }
  | { grantType: 'pre-authorized_code'; preAuthorizedCode: string; txCode: string | undefined };

/** The request headers @openid4vc/oauth2 reads when it parses a token request. */
const LIBRARY_HEADERS = ['dpop', 'oauth-client-attestation', 'oauth-client-attestation-pop'] as const;

/**
 * Parses the grant of a token request with @openid4vc/oauth2 (authorization_code, refresh_token, the pre-authorized
 * code); client_credentials is ours. A malformed grant is invalid_request, an unknown one unsupported_grant_type
 * (RFC 6749 §5.2).
 */
export function parseTokenGrant(
  ctx: TokenServiceContext,
  tenantId: string,
  request: { url: string; headers: RequestHeaders; form: Readonly<Record<string, string>> },
): TokenGrant {
  const form = request.form;
  if (form.grant_type === 'client_credentials') return { grantType: 'client_credentials' };
  const plain = plainGrant(form, request.headers, ctx.dpop.enabled);
  if (plain) return plain;
  // Only the headers the library looks at (its DPoP and client attestation checks), not the whole request's. With
  // DPoP on, the proof is verified in full by the grant's command (RFC 9449 §4.3), with its own answers.
  const headers = new Headers();
  for (const name of LIBRARY_HEADERS) {
    if (name === 'dpop' && ctx.dpop.enabled) continue;
    const value = request.headers[name];
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  try {
    const parsed = ctx.signer.oauth2For(tenantId).parseAccessTokenRequest({
      request: { method: 'POST', url: request.url, headers },
      // RFC 8707 `resource` of an OpenID4VCI grant is the credential issuer, which the grant's command checks against
      // the tenant's binding (a loopback http issuer in development included); the library would accept https only.
      accessTokenRequest: isCredentialGrant(form) ? withoutResource(form) : form,
    });
    if (parsed.grant.grantType === 'authorization_code')
      return { grantType: 'authorization_code', code: parsed.grant.code };
    if (parsed.grant.grantType === 'refresh_token')
      return { grantType: 'refresh_token', refreshToken: parsed.grant.refreshToken };
    if (parsed.grant.grantType === PRE_AUTHORIZED_CODE_GRANT)
      return {
        grantType: 'pre-authorized_code',
        preAuthorizedCode: parsed.grant.preAuthorizedCode,
        txCode: parsed.grant.txCode,
      };
  } catch (error) {
    if (error instanceof Oauth2ServerErrorResponseError) {
      const code = error.errorResponse.error;
      throw oauthError(
        isOAuthErrorCode(code) ? code : 'invalid_request',
        code === 'unsupported_grant_type' ? 'The grant type is not supported.' : 'The token request is malformed.',
      );
    }
    throw error;
  }
  throw oauthError('unsupported_grant_type', 'The grant type is not supported.');
}

/**
 * The two grants of every login and refresh, when their request is plainly well formed: the grant the library would
 * return for it, without its schema run (its Zod intersection and URL check were a tenth of a refresh's CPU, issue
 * 22). "Plainly" means every check of the library's `parseAccessTokenRequest` visibly passes: the grant's value is a
 * non-empty string, `redirect_uri` (if any) parses as a URL and has no surrounding space (its `z.url()`), and nothing is present that
 * the library would look at more closely (`resource`, `tx_code` with `user_pin`, a DPoP header it would read, client
 * attestation headers). Anything else, valid or not, goes through the library, which answers as before.
 */
export function plainGrant(
  form: Readonly<Record<string, string>>,
  headers: RequestHeaders,
  dpopEnabled: boolean,
): TokenGrant | undefined {
  if (form.resource !== undefined || (form.tx_code !== undefined && form.user_pin !== undefined)) return undefined;
  if (!dpopEnabled && headers.dpop !== undefined) return undefined;
  if (headers['oauth-client-attestation'] !== undefined || headers['oauth-client-attestation-pop'] !== undefined)
    return undefined;
  const redirectUri = form.redirect_uri;
  if (redirectUri !== undefined && (redirectUri.trim() !== redirectUri || !URL.canParse(redirectUri))) return undefined;
  if (form.grant_type === 'refresh_token' && typeof form.refresh_token === 'string' && form.refresh_token !== '')
    return { grantType: 'refresh_token', refreshToken: form.refresh_token };
  if (form.grant_type === 'authorization_code' && typeof form.code === 'string' && form.code !== '')
    return { grantType: 'authorization_code', code: form.code };
  return undefined;
}
