import type { JWTPayload } from 'jose';
import type { Sql } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import { hashToken } from '../domain/random.js';
import { grantStore, type Grant } from '../storage/grant-store.js';

export type InspectedToken =
  | {
      kind: 'access_token';
      jti: string;
      clientId: string;
      subject: string;
      scope: string;
      exp: number;
      iat: number;
      audience: string[];
      grant: Grant | null;
      cnfJkt: string | null;
      claims: Record<string, unknown>;
    }
  | {
      kind: 'refresh_token';
      tokenHash: string;
      clientId: string;
      subject: string | null;
      scope: string;
      exp: number;
      iat: number;
      grant: Grant;
    };

/**
 * The signature, issuer and expiry check of an access token. It reads signing keys, so it runs before the
 * caller opens its unit of work (the embedded database has one connection: no nested transactions).
 */
export async function verifyAccessTokenJwt(
  ctx: TokenServiceContext,
  tenantId: string,
  token: string,
): Promise<JWTPayload | null> {
  if (token.split('.').length !== 3) return null;
  return ctx.signer.verifyOwn(tenantId, token, {
    issuer: ctx.issuerFor(tenantId),
    typ: 'at+jwt',
    now: ctx.clock.now(),
  });
}

/**
 * Finds out what a presented token is and whether it is active now (RFC 7662 §2.2): a JWT access token of this
 * tenant whose signature, issuer and expiry hold, which was not revoked and whose grant was not revoked; or a
 * refresh token that exists, was not rotated, has not expired and whose grant is live. Anything else: null.
 * Tokens of client_credentials have no stored grant and are active until they expire or are revoked.
 */
export async function inspectToken(
  ctx: TokenServiceContext,
  sql: Sql,
  token: string,
  hint: string | undefined,
  verifiedAccessToken: JWTPayload | null,
): Promise<InspectedToken | null> {
  const now = ctx.clock.now();
  const asAccess = async (): Promise<InspectedToken | null> => {
    const payload = verifiedAccessToken;
    if (!payload || typeof payload.jti !== 'string' || typeof payload.client_id !== 'string') return null;
    const grantId = typeof payload.sid === 'string' ? payload.sid : null;
    const state = await grantStore.accessTokenState(sql, payload.jti, grantId);
    if (state.revoked) return null;
    const isClientToken = payload.sub === payload.client_id && state.grant === null;
    if (!isClientToken && (state.grant === null || state.grant.revokedAt !== null)) return null;
    const cnf = payload.cnf as { jkt?: unknown } | undefined;
    return {
      kind: 'access_token',
      jti: payload.jti,
      clientId: payload.client_id,
      subject: String(payload.sub),
      scope: typeof payload.scope === 'string' ? payload.scope : '',
      exp: payload.exp!,
      iat: payload.iat!,
      audience: Array.isArray(payload.aud) ? payload.aud : payload.aud ? [payload.aud] : [],
      grant: state.grant,
      cnfJkt: typeof cnf?.jkt === 'string' ? cnf.jkt : null,
      claims: payload as Record<string, unknown>,
    };
  };
  const asRefresh = async (): Promise<InspectedToken | null> => {
    const found = await grantStore.findRefreshTokenWithGrant(sql, hashToken(token));
    if (!found) return null;
    const { token: t, grant } = found;
    if (t.rotatedAt !== null || grant.revokedAt !== null || t.expiresAt.getTime() <= now.getTime()) return null;
    return {
      kind: 'refresh_token',
      tokenHash: t.tokenHash,
      clientId: t.clientId,
      subject: grant.subject,
      scope: t.scope,
      exp: Math.floor(t.expiresAt.getTime() / 1000),
      iat: Math.floor(t.createdAt.getTime() / 1000),
      grant,
    };
  };
  // The hint only orders the lookups (RFC 7662 §2.1, RFC 7009 §2.1).
  const order = hint === 'refresh_token' ? [asRefresh, asAccess] : [asAccess, asRefresh];
  for (const attempt of order) {
    const found = await attempt();
    if (found) return found;
  }
  return null;
}
