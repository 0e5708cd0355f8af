import type { Sql } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import type { AuthorizationRequestFields } from '../domain/authorization-request-fields.js';
import { clientRedirect } from '../domain/authorization-request.js';
import { hashToken, newOpaqueToken } from '../domain/random.js';
import { grantStore } from '../storage/grant-store.js';
import { grantClaimsAad } from '../storage/sealed-fields.js';
import { newGrant } from '../tokens/issue-tokens.js';
import { oauthError } from '../domain/oauth-error.js';
import { CREDENTIAL_CODE_PREFIX, type CredentialAuthorization } from '../oid4vci/credential-authorization.js';
import { credentialAuthorizationStore } from '../oid4vci/credential-authorization-store.js';
import { credentialGrantStore } from '../oid4vci/credential-grant-store.js';

export interface Authentication {
  subject: string;
  acr: string;
  amr: string[];
  authTime: Date;
  claims: Record<string, unknown>;
}

/**
 * Ends a successful login: creates the grant and a single-use authorization code bound to the client, the
 * redirect URI and the PKCE challenge, and answers the redirect to the client with code, state and iss.
 */
export async function issueAuthorizationCode(
  ctx: TokenServiceContext,
  tenantId: string,
  sql: Sql,
  request: AuthorizationRequestFields,
  auth: Authentication,
  /** OpenID4VCI 1.0 §5: the issuance this code authorizes; its issuer_state is used up here. */
  credential?: CredentialAuthorization,
): Promise<string> {
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + ctx.config.authorizationCodeTtlSeconds * 1000);
  const code = credential ? `${CREDENTIAL_CODE_PREFIX}${newOpaqueToken()}` : newOpaqueToken();
  const grant = newGrant({
    clientId: request.clientId,
    subject: auth.subject,
    scope: request.scope,
    acr: auth.acr,
    amr: auth.amr,
    authTime: auth.authTime,
    claims: auth.claims,
    dpopJkt: request.dpopJkt,
    createdAt: now,
    // Until the code is exchanged the grant lives as long as the code (consumeCode extends it).
    expiresAt,
  });
  const sealedClaims = await ctx.sealer.sealJson(auth.claims, grantClaimsAad(tenantId, grant.id), sql);
  await grantStore.saveGrantWithCode(sql, grant, sealedClaims, {
    codeHash: hashToken(code),
    grantId: grant.id,
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    nonce: request.nonce,
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: request.codeChallengeMethod,
    createdAt: now,
    expiresAt,
    consumedAt: null,
  });
  if (credential) {
    if (!(await credentialGrantStore.useIssuerState(sql, credential.issuerStateHash, now)))
      throw oauthError('invalid_request', 'issuer_state is unknown, expired or already used.');
    await credentialAuthorizationStore.saveForGrant(sql, grant.id, credential, now, expiresAt);
  }
  return clientRedirect(request.redirectUri, { code, state: request.state, iss: ctx.issuerFor(tenantId) });
}
