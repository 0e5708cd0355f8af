import { rowAad } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import type { Grant, LoginTransaction } from './grant-store.js';

/**
 * The token service's personal data at rest (issue 13 §4), sealed through the platform's JsonSealer under one
 * key-encryption key, each value bound to its tenant, row and column: the claims of a grant, and the upstream PKCE
 * verifier of a federated login in progress.
 */
export const TOKEN_SERVICE_SEALING_ALIAS = 'token-service-secrets';

export const grantClaimsAad = (tenantId: string, grantId: string) =>
  rowAad('oauth_grants', tenantId, grantId, 'claims');

export const upstreamVerifierAad = (tenantId: string, transactionId: string) =>
  rowAad('oauth_login_transactions', tenantId, transactionId, 'upstream_code_verifier');

/** The claims of a grant: opened from their seal, or as held in memory (a grant just made). */
export function grantClaims(
  ctx: TokenServiceContext,
  tenantId: string,
  grant: Grant,
): Promise<Record<string, unknown>> | Record<string, unknown> {
  return grant.sealedClaims
    ? ctx.sealer.openJson<Record<string, unknown>>(grant.sealedClaims, grantClaimsAad(tenantId, grant.id))
    : grant.claims;
}

/** The upstream PKCE verifier of a login transaction (null when it has none). */
export async function upstreamCodeVerifier(
  ctx: TokenServiceContext,
  tenantId: string,
  tx: LoginTransaction,
): Promise<string | null> {
  if (tx.sealedUpstreamCodeVerifier)
    return ctx.sealer.openJson<string>(tx.sealedUpstreamCodeVerifier, upstreamVerifierAad(tenantId, tx.id));
  return tx.upstreamCodeVerifier;
}
