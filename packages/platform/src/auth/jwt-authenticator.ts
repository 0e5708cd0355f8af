import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, errors as joseErrors, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { AppError } from '../errors/index.js';
import type { Principal } from './principal.js';

export interface TrustedIssuer {
  issuer: string;
  jwksUri: string;
  audience: string | string[];
  algorithms: string[];
}

export interface JwtAuthenticatorOptions {
  issuers: TrustedIssuer[];
  tenantClaim: string;
  rolesClaim: string;
  clockToleranceSeconds: number;
  jwksCacheSeconds: number;
  jwksCooldownSeconds: number;
  /** Key set resolver override (tests, or an in-process issuer's key set). */
  keySetFor?: (issuer: TrustedIssuer) => JWTVerifyGetKey;
}

// A kid is an opaque string, but one that could be a path or a query is refused before any key lookup.
const SAFE_KID = /^[A-Za-z0-9._:~+=-]{1,200}$/;
const ASYMMETRIC = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']);

const invalidToken = (message: string, cause?: unknown) =>
  new AppError('invalid_token', message, { headers: { 'www-authenticate': `Bearer error="invalid_token"` }, cause });

/**
 * Bearer JWT validation (issue 2 §6): issuer, audience, expiry and signature against the issuer's key set by URI,
 * cached (jose's remote key set: `cacheMaxAge`, and a refetch on an unknown kid no more often than `cooldown`, which
 * is how key rotation is followed). Header checks run first, so a forged token (alg none, HS256 with our public
 * key, a kid shaped like a path or SQL, jku/x5u elsewhere) is refused with no outbound fetch.
 */
export class JwtAuthenticator {
  private readonly keySets = new Map<string, JWTVerifyGetKey>();

  constructor(private readonly options: JwtAuthenticatorOptions) {}

  get configured(): boolean {
    return this.options.issuers.length > 0;
  }

  private keySet(issuer: TrustedIssuer): JWTVerifyGetKey {
    let ks = this.keySets.get(issuer.issuer);
    if (!ks) {
      ks =
        this.options.keySetFor?.(issuer) ??
        createRemoteJWKSet(new URL(issuer.jwksUri), {
          cacheMaxAge: this.options.jwksCacheSeconds * 1000,
          cooldownDuration: this.options.jwksCooldownSeconds * 1000,
          timeoutDuration: 5000,
        });
      this.keySets.set(issuer.issuer, ks);
    }
    return ks;
  }

  async authenticate(token: string): Promise<{ principal: Principal; payload: JWTPayload }> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    let unverified: JWTPayload;
    try {
      header = decodeProtectedHeader(token);
      unverified = decodeJwt(token);
    } catch (cause) {
      throw invalidToken('The access token is malformed.', cause);
    }
    if (!header.alg || !ASYMMETRIC.has(header.alg)) throw invalidToken('The access token algorithm is not accepted.');
    if (header.kid !== undefined && !SAFE_KID.test(header.kid)) throw invalidToken('The access token key id is not accepted.');
    const issuer = this.options.issuers.find((i) => i.issuer === unverified.iss);
    if (!issuer) throw invalidToken('The access token issuer is not trusted.');
    if (!issuer.algorithms.includes(header.alg)) throw invalidToken('The access token algorithm is not accepted.');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keySet(issuer), {
        issuer: issuer.issuer,
        audience: issuer.audience,
        algorithms: issuer.algorithms,
        clockTolerance: this.options.clockToleranceSeconds,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (cause) {
      // The key set could not be had (down, slow, or answering something that is not a key set): 503, not 401.
      const keySetUnavailable =
        cause instanceof joseErrors.JWKSTimeout ||
        cause instanceof joseErrors.JWKSInvalid ||
        (cause instanceof joseErrors.JOSEError && cause.code === 'ERR_JOSE_GENERIC') ||
        (cause instanceof Error && /fetch failed|ECONNREFUSED/.test(cause.message));
      if (keySetUnavailable) {
        throw new AppError('service_unavailable', 'The token issuer key set is unavailable.', { cause });
      }
      const expired = cause instanceof joseErrors.JWTExpired;
      throw invalidToken(expired ? 'The access token has expired.' : 'The access token is invalid.', cause);
    }
    return { principal: this.toPrincipal(payload, issuer), payload };
  }

  private toPrincipal(payload: JWTPayload, issuer: TrustedIssuer): Principal {
    const list = (v: unknown): string[] =>
      Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? v.split(' ').filter(Boolean) : [];
    const clientId = typeof payload.azp === 'string' ? payload.azp : typeof payload.client_id === 'string' ? payload.client_id : null;
    const tenant = payload[this.options.tenantClaim];
    return {
      id: payload.sub!,
      kind: clientId !== null && clientId === payload.sub ? 'client' : 'user',
      tenantId: typeof tenant === 'string' ? tenant : null,
      roles: list(payload[this.options.rolesClaim]),
      scopes: list(payload.scope ?? payload.scp),
      clientId,
      issuer: issuer.issuer,
    };
  }
}
