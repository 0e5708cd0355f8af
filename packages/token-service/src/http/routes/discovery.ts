import { AppError, DatabaseReachability, type RoleApp } from '@tessera/platform';
import type { TokenServiceContext } from '../../context.js';
import { PRE_AUTHORIZED_CODE_GRANT } from '../../oid4vci/pre-authorized-client.js';

/**
 * For a tenant with a credential issuer (issue 19): the pre-authorized code grant, open to wallets without a
 * client registration (OpenID4VCI 1.0 §12.3 `pre-authorized_grant_anonymous_access_supported`), and
 * `authorization_details` of type `openid_credential` (RFC 9396 §10); DPoP proofs are accepted for them (RFC 9449 §5.1).
 */
function oid4vciMetadata(ctx: TokenServiceContext, doc: Record<string, unknown>): Record<string, unknown> {
  return {
    // These grants honour DPoP proofs even while dpop.enabled is off for the others (HAIP 1.0).
    dpop_signing_alg_values_supported: [...ctx.dpop.algs],
    grant_types_supported: [...(doc.grant_types_supported as string[]), PRE_AUTHORIZED_CODE_GRANT],
    'pre-authorized_grant_anonymous_access_supported': true,
    authorization_details_types_supported: ['openid_credential'],
  };
}

/**
 * Discovery (000 §4.4): the same document at both well-known paths, every member the spec lists with its values,
 * plus the standard members our server implements (RFC 8414, RFC 9207, RFC 9449 when DPoP is on).
 */
export function discoveryDocument(ctx: TokenServiceContext, tenantId: string): Record<string, unknown> {
  const issuer = ctx.issuerFor(tenantId);
  const doc: Record<string, unknown> = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    introspection_endpoint: `${issuer}/introspect`,
    revocation_endpoint: `${issuer}/revoke`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    userinfo_endpoint: `${issuer}/userinfo`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ['openid', 'profile', 'email', ctx.serviceClaim, 'offline_access'],
    response_modes_supported: ['query'],
    claims_supported: [
      'sub',
      'iss',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'acr',
      'amr',
      'sid',
      'name',
      'given_name',
      'family_name',
      'email',
      'email_verified',
      'eduperson_principal_name',
      ctx.serviceClaim,
    ],
    acr_values_supported: [
      ...new Set([ctx.walletAcr, ctx.config.upstream.defaultAcr, ...ctx.config.upstream.acrValues]),
    ],
    authorization_response_iss_parameter_supported: true,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
  };
  if (ctx.dpop.enabled) doc.dpop_signing_alg_values_supported = [...ctx.dpop.algs];
  if (ctx.credentialIssuerFor(tenantId) !== undefined) Object.assign(doc, oid4vciMetadata(ctx, doc));
  return doc;
}

export function registerDiscoveryRoutes(app: RoleApp, ctx: TokenServiceContext): void {
  const config = { family: 'oauth' as const, auth: 'none' as const };
  // 000 §4.5: discovery "answers 200 when healthy", so a load balancer that probes it takes a replica whose
  // database is unreachable out of rotation (issue 13 §3).
  const database = new DatabaseReachability(ctx.platform.db);
  for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
    app.get(path, { config, schema: { tags: ['discovery'] } }, async (request, reply) => {
      if (!(await database.reachable()))
        throw new AppError('service_unavailable', 'The authorization server is temporarily unavailable.', {
          headers: { 'retry-after': '5' },
        });
      return reply.header('cache-control', 'public, max-age=300').send(discoveryDocument(ctx, request.state.tenantId!));
    });
  }
  app.get('/.well-known/jwks.json', { config, schema: { tags: ['discovery'] } }, async (request, reply) =>
    reply.header('cache-control', 'public, max-age=300').send(await ctx.signer.jwks(request.state.tenantId!)),
  );
}
