import type { TokenServiceContext } from '../context.js';
import { oauthError } from '../domain/oauth-error.js';

/** One entry of `authorization_details` of type `openid_credential` (OpenID4VCI 1.0 §5.1.1, §6.2). */
export interface CredentialAuthorizationDetail {
  type: 'openid_credential';
  credential_configuration_id: string;
  /**
   * §6.2: one identifier per Credential Dataset. A session holds one dataset per configuration, so the identifier
   * is the configuration id; the credential endpoint accepts it as `credential_identifier` (§8.2).
   */
  credential_identifiers: string[];
}

export interface CredentialTokenResponse {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  authorization_details: CredentialAuthorizationDetail[];
  [name: string]: unknown;
}

export const detailsFor = (configurationIds: readonly string[]): CredentialAuthorizationDetail[] =>
  configurationIds.map((id) => ({
    type: 'openid_credential',
    credential_configuration_id: id,
    credential_identifiers: [id],
  }));

/**
 * The tenant's credential issuer (contract C), or a refusal naming what is missing (never a fallback, 001 §5). A
 * `resource` (RFC 8707, which OpenID4VCI wallets send as the credential issuer) must name it: anything else is
 * `invalid_target` (RFC 8707 §2).
 */
export function credentialAudience(ctx: TokenServiceContext, tenantId: string, resource: string | undefined): string {
  const audience = ctx.credentialIssuerFor(tenantId);
  if (!audience)
    throw oauthError('invalid_grant', 'No credential issuer is bound to this tenant (tenant_public_endpoint).');
  if (resource !== undefined && resource.replace(/\/+$/, '') !== audience)
    throw oauthError('invalid_target', 'resource is not the credential issuer of this tenant.');
  return audience;
}

/**
 * The access token for the credential endpoint (contract B of issue 19; RFC 9068 through @openid4vc/oauth2): iss
 * the tenant's token service, aud the tenant's credential issuer, sub the person or `issuance:<correlationId>`,
 * tenant_id, issuance_session, the authorized `authorization_details`, `cnf.jkt` when DPoP-bound, client_id when a
 * client is known, jti, iat, exp. The response carries `authorization_details` too (§6.2) and no c_nonce (1.0: the
 * nonce endpoint gives it).
 */
export async function createCredentialAccessToken(
  ctx: TokenServiceContext,
  tenantId: string,
  input: {
    audience: string;
    subject: string;
    correlationId: string;
    configurationIds: readonly string[];
    clientId: string | null;
    dpopJkt: string | null;
    jti: string;
    now: Date;
  },
): Promise<CredentialTokenResponse> {
  const details = detailsFor(input.configurationIds);
  const expiresIn = ctx.config.oid4vci.accessTokenTtlSeconds;
  const tokenType = input.dpopJkt ? 'DPoP' : 'Bearer';
  const response = await ctx.signer.oauth2For(tenantId).createAccessTokenResponse({
    authorizationServer: ctx.issuerFor(tenantId),
    audience: input.audience,
    ...(input.clientId ? { clientId: input.clientId } : {}),
    subject: input.subject,
    expiresInSeconds: expiresIn,
    now: input.now,
    signer: { method: 'custom', alg: 'RS256' },
    additionalAccessTokenPayload: {
      jti: input.jti,
      tenant_id: tenantId,
      issuance_session: input.correlationId,
      authorization_details: details,
      ...(input.dpopJkt ? { cnf: { jkt: input.dpopJkt } } : {}),
    },
    additionalAccessTokenResponsePayload: { token_type: tokenType, authorization_details: details },
  });
  return {
    access_token: response.access_token,
    token_type: tokenType,
    expires_in: expiresIn,
    authorization_details: details,
  };
}
