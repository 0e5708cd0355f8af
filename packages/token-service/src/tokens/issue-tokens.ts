import { randomUUID } from 'node:crypto';
import { secureRandomToken } from '@tessera/platform';
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

/** The access token's jti: 32 random bytes, base64url (as @openid4vc/oauth2 made it). */
const JTI_BYTES = 32;

/**
 * The access token (RFC 9068 JWT, `typ` at+jwt; 000 §2.9 claims) of a grant: iss, sub (the internal identity id),
 * aud (the client), exp, iat, jti, client_id, scope, sid (the grant, so that revoking the grant makes the token
 * inactive), tenant_id, acr, amr, auth_time, cnf (a DPoP-bound grant), the service claim when its scope is granted.
 *
 * Assembled here and signed by the tenant's key, as the ID token is. @openid4vc/oauth2's createAccessTokenResponse
 * made the same token (the same claims, header and jti length) but ran three schema parses of its own inputs per
 * token: more than half of what assembling a token cost on the main thread, the signature left aside
 * (docs/decisions.md). Every value here is set by this function from checked data. The OID4VCI credential access
 * token (credential-access-token.ts), which the library also answers with c_nonce, still goes through it.
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
  const iat = seconds(now);
  const payload: Record<string, unknown> = {
    iat,
    exp: iat + client.accessTokenTtlSeconds,
    aud: client.audience,
    iss: ctx.issuerFor(tenantId),
    jti: secureRandomToken(JTI_BYTES),
    client_id: client.clientId,
    sub: grant.subject ?? client.clientId,
    scope,
    ...additionalClaims,
    sid: grant.id,
    tenant_id: tenantId,
  };
  if (grant.acr) payload.acr = grant.acr;
  if (grant.amr.length > 0) payload.amr = grant.amr;
  if (grant.authTime) payload.auth_time = seconds(grant.authTime);
  if (parseScope(scope).includes(ctx.serviceClaim)) {
    const value = (await grantClaims(ctx, tenantId, grant))[ctx.serviceClaim];
    if (value !== undefined) payload[ctx.serviceClaim] = value;
  }
  if (grant.dpopJkt) payload.cnf = { jkt: grant.dpopJkt };
  return ctx.signer.sign(tenantId, payload, { typ: 'at+jwt' });
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
