import type { TokenServiceContext } from '../context.js';
import type { OAuthErrorCode } from '../domain/oauth-error.js';
import { hashToken } from '../domain/random.js';
import { formatScope, parseScope } from '../domain/scopes.js';
import { parseCredentialAuthorizationDetails } from './authorization-details.js';
import { credentialGrantStore } from './credential-grant-store.js';
import type { CredentialAuthorization } from './credential-authorization.js';

/** The OpenID4VCI parts of an authorization request (§5.1), split from the OAuth ones. */
export interface CredentialRequestParts {
  /** The request without its credential scopes, for the ordinary checks (client, redirect URI, PKCE, DPoP). */
  params: URLSearchParams;
  issuerState: string | null;
  authorizationDetails: string | null;
  /** Configuration ids named by a credential scope (§5.1.2). */
  scopedConfigurationIds: string[];
}

/**
 * Whether the request asks for credentials: it carries `issuer_state` or `authorization_details` (§5.1.1, §5.1.3) or
 * a scope that a credential configuration publishes (§5.1.2, `tokenService` option `credentialScopes`). Answers
 * null for an ordinary login request.
 */
export function splitCredentialRequest(
  params: URLSearchParams,
  credentialScopes: Readonly<Record<string, string>>,
): CredentialRequestParts | null {
  const scopes = parseScope(params.get('scope') ?? undefined);
  const credential = scopes.filter((s) => Object.hasOwn(credentialScopes, s));
  if (!params.has('issuer_state') && !params.has('authorization_details') && credential.length === 0) return null;
  const rest = new URLSearchParams(params);
  const others = scopes.filter((s) => !credential.includes(s));
  if (others.length > 0) rest.set('scope', formatScope(others));
  else rest.delete('scope');
  return {
    params: rest,
    issuerState: params.get('issuer_state'),
    authorizationDetails: params.get('authorization_details'),
    scopedConfigurationIds: credential.map((s) => credentialScopes[s]!),
  };
}

export type CredentialRequestResolution =
  { ok: true; credential: CredentialAuthorization } | { ok: false; error: OAuthErrorCode; description: string };

/**
 * Resolves the issuer_state through the offer's grant (unknown, expired or used: refused) and checks that every
 * configuration asked for, by authorization_details or scope, was offered with it. Without either, the request
 * authorizes every configuration of the offer.
 */
export async function resolveCredentialRequest(
  ctx: TokenServiceContext,
  tenantId: string,
  parts: CredentialRequestParts,
): Promise<CredentialRequestResolution> {
  const refuse = (error: OAuthErrorCode, description: string): CredentialRequestResolution => ({
    ok: false,
    error,
    description,
  });
  if (ctx.credentialIssuerFor(tenantId) === undefined)
    return refuse('invalid_request', 'No credential issuer is bound to this tenant (tenant_public_endpoint).');
  if (parts.params.getAll('issuer_state').length > 1 || parts.params.getAll('authorization_details').length > 1)
    return refuse('invalid_request', 'issuer_state or authorization_details is repeated.');
  if (!parts.issuerState)
    return refuse('invalid_request', 'issuer_state from a credential offer is required to request credentials.');
  const issuerStateHash = hashToken(parts.issuerState);
  const grant = await ctx.platform.db.withTenant(tenantId, (sql) =>
    credentialGrantStore.find(sql, 'issuer_state', issuerStateHash),
  );
  const now = ctx.clock.now();
  if (!grant || grant.redeemedAt || grant.expiresAt.getTime() <= now.getTime())
    return refuse('invalid_request', 'issuer_state is unknown, expired or already used.');
  const offered = grant.credentialConfigurationIds;
  let asked: string[] = [];
  if (parts.authorizationDetails !== null) {
    const details = parseCredentialAuthorizationDetails(parts.authorizationDetails, offered);
    if (!details.ok) return refuse('invalid_authorization_details', details.description);
    asked = details.configurationIds;
  }
  for (const id of parts.scopedConfigurationIds) {
    if (!offered.includes(id)) return refuse('invalid_scope', 'A credential scope names a configuration not offered.');
    if (!asked.includes(id)) asked.push(id);
  }
  return {
    ok: true,
    credential: {
      issuerStateHash,
      correlationId: grant.correlationId,
      configurationIds: asked.length > 0 ? asked : [...offered],
    },
  };
}
