import { randomUUID } from 'node:crypto';
import type { TokenServiceContext } from '../context.js';
import type { Client } from '../clients/client-registry.js';
import type { Grant } from '../storage/grant-store.js';
import { claimsForScopes, parseScope, pickClaims } from '../domain/scopes.js';
import { grantClaims } from '../storage/sealed-fields.js';

export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  refresh_token?: string;
  id_token?: string;
  scope: string;
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * The access token (RFC 9068 JWT through @openid4vc/oauth2; 000 §2.9 claims) of a grant: iss, sub (the internal
 * identity id), aud (the client), exp, iat, jti, client_id, scope, sid (the grant, so that revoking the grant makes
 * the token inactive), acr, amr, auth_time, the service claim when its scope is granted.
 */
export async function createAccessToken(
  ctx: TokenServiceContext,
  tenantId: string,
  client: Client,
  grant: Grant,
  scope: string,
  now: Date,
  additionalClaims: Record<string, unknown> = {},
): Promise<string> {
  const scopes = parseScope(scope);
  const extra: Record<string, unknown> = { ...additionalClaims, sid: grant.id, tenant_id: tenantId };
  if (grant.acr) extra.acr = grant.acr;
  if (grant.amr.length > 0) extra.amr = grant.amr;
  if (grant.authTime) extra.auth_time = seconds(grant.authTime);
  if (scopes.includes(ctx.serviceClaim)) {
    const value = (await grantClaims(ctx, tenantId, grant))[ctx.serviceClaim];
    if (value !== undefined) extra[ctx.serviceClaim] = value;
  }
  if (grant.dpopJkt) extra.cnf = { jkt: grant.dpopJkt };
  const issuer = ctx.issuerFor(tenantId);
  const response = await ctx.signer.oauth2For(tenantId).createAccessTokenResponse({
    authorizationServer: issuer,
    audience: client.audience,
    clientId: client.clientId,
    subject: grant.subject ?? client.clientId,
    scope,
    expiresInSeconds: client.accessTokenTtlSeconds,
    now,
    signer: { method: 'custom', alg: 'RS256' },
    additionalAccessTokenPayload: extra,
  });
  return response.access_token;
}

/** The ID token (OIDC Core §2): nonce, acr, amr, auth_time, and the claims its scopes release. */
export async function createIdToken(
  ctx: TokenServiceContext,
  tenantId: string,
  client: Client,
  grant: Grant,
  nonce: string | null,
  now: Date,
): Promise<string> {
  const payload: Record<string, unknown> = {
    iss: ctx.issuerFor(tenantId),
    sub: grant.subject,
    aud: client.clientId,
    azp: client.clientId,
    iat: seconds(now),
    exp: seconds(now) + client.idTokenTtlSeconds,
    sid: grant.id,
    ...pickClaims(await grantClaims(ctx, tenantId, grant), claimsForScopes(parseScope(grant.scope), ctx.serviceClaim)),
  };
  if (nonce) payload.nonce = nonce;
  if (grant.acr) payload.acr = grant.acr;
  if (grant.amr.length > 0) payload.amr = grant.amr;
  if (grant.authTime) payload.auth_time = seconds(grant.authTime);
  return ctx.signer.sign(tenantId, payload, { typ: 'JWT' });
}

/** A grant with a fresh id, as the authorization endpoint creates it. */
export function newGrant(input: Omit<Grant, 'id' | 'revokedAt'>): Grant {
  return { ...input, id: randomUUID(), revokedAt: null };
}
