import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  jwtVerify,
  errors as joseErrors,
  jwksCache,
  type CompactJWSHeaderParameters,
  type ExportedJWKSCache,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { AppError } from '../errors/index.js';
import type { Principal } from './principal.js';

export interface TrustedIssuer {
  issuer: string;
  jwksUri: string;
  audience: string | string[];
  algorithms: string[];
  /**
   * What the issuer may assert (docs/decisions.md, trust per issuer). `tenants`: the tenants its tokens may act in
   * (absent: the default tenant only; `any` only for the deployment's own token service). `roles`: the roles it may
   * grant (absent: any role but the platform administrator's). `scopes`: the scopes it may grant (absent: any).
   * A token that asserts more is refused, never trimmed.
   */
  tenants?: 'any' | string[] | undefined;
  roles?: 'any' | string[] | undefined;
  scopes?: 'any' | string[] | undefined;
}

export interface JwtAuthenticatorOptions {
  issuers: TrustedIssuer[];
  tenantClaim: string;
  rolesClaim: string;
  /** The role that only an issuer explicitly allowed to grant it may assert. */
  platformAdminRole: string;
  /** The tenant an issuer without a `tenants` list may act in. */
  defaultTenant?: string | undefined;
  clockToleranceSeconds: number;
  jwksCacheSeconds: number;
  jwksCooldownSeconds: number;
  /** Key set resolver override (tests, or an in-process issuer's key set). */
  keySetFor?: (issuer: TrustedIssuer) => JWTVerifyGetKey;
  /**
   * How long a token that verified is remembered (default 60 s, never past its `exp`; 0 turns it off), and how many
   * are (default 10,000). See `VerifiedTokens`.
   */
  verifiedCacheSeconds?: number;
  verifiedCacheEntries?: number;
  /** The clock of the cache (tests); jose checks `exp` against the system clock. */
  now?: () => number;
}

// A kid is an opaque string, but one that could be a path or a query is refused before any key lookup.
const SAFE_KID = /^[A-Za-z0-9._:~+=-]{1,200}$/;
const ASYMMETRIC = new Set([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);

const invalidToken = (message: string, cause?: unknown) =>
  new AppError('invalid_token', message, { headers: { 'www-authenticate': `Bearer error="invalid_token"` }, cause });

/** What a verified token asserted beyond its issuer's trust: refused, and recorded as an authentication event. */
export type TrustViolation = 'tenant' | 'role' | 'scope';

export class IssuerTrustError extends AppError {
  constructor(
    readonly violation: TrustViolation,
    readonly issuer: string,
    readonly claimedPrincipal: string | null,
  ) {
    super('invalid_token', `The access token asserts a ${violation} that its issuer may not grant.`, {
      headers: { 'www-authenticate': `Bearer error="invalid_token"` },
    });
  }
}

type Verified = { principal: Principal; payload: JWTPayload };

/** A verification remembered: its outcome, and the key of the issuer's key set that checked the signature. */
interface VerifiedEntry {
  /** The whole token: the map's key is only its end (VerifiedTokens). */
  token: string;
  value: Verified;
  until: number;
  issuer: TrustedIssuer;
  header: CompactJWSHeaderParameters;
  key: unknown;
  /**
   * The load of the key set in which `key` was found (KeySet.currentLoad), when that is known: while the issuer's
   * set is still that load and fresh, the same lookup would find the same key, so it is not repeated.
   */
  keySetLoad: object | undefined;
}

/**
 * An issuer's key set. A remote one (jose's, fetched from the issuer's jwks_uri) tells which load of the set it
 * serves, through jose's `jwksCache` object, which jose fills on every (re)load with the fetched document (a new
 * object each time) and the load time: another document means the keys may have changed (rotation, withdrawal).
 * A set given by `keySetFor` does not; every remembered token is then checked against it by a key lookup.
 */
interface KeySet {
  getKey: JWTVerifyGetKey;
  /** The document of the load now served, while it is within its cache age (jose reloads it after); else undefined. */
  currentLoad(): object | undefined;
}

/**
 * Tokens that verified, by their exact text. A client sends the same access token with every call until it
 * expires; an RS256 verification costs ~40 µs (more than the rest of a simple API call), so the signature is
 * checked once per token and the outcome reused for at most `verifiedCacheSeconds`, never past the token's `exp`
 * (plus the clock tolerance), never for a token that failed, and only while the issuer's key set still gives the
 * very key that checked it: once the set is refreshed without that key (rotation, withdrawal), the token is
 * verified again and refused. Only complete token strings match: a token that differs in one byte is verified
 * in full.
 *
 * Entries are found by the token's last characters (part of its signature) and then compared in full: a map keyed by
 * the whole token hashed every request's new copy of it, about 1 µs for an 800-character token, against 0.2 µs for
 * the end and a comparison. A token that shares the end of a remembered one but differs elsewhere is no hit (and
 * does not displace the entry: only a verified token is stored).
 */
class VerifiedTokens {
  private readonly entries = new Map<string, VerifiedEntry>();

  constructor(
    private readonly seconds: number,
    private readonly capacity: number,
    private readonly now: () => number,
  ) {}

  get(token: string): VerifiedEntry | undefined {
    const key = keyOf(token);
    const hit = this.entries.get(key);
    if (!hit || hit.token !== token) return undefined;
    if (hit.until > this.now()) return hit;
    this.entries.delete(key);
    return undefined;
  }

  forget(token: string): void {
    const key = keyOf(token);
    if (this.entries.get(key)?.token === token) this.entries.delete(key);
  }

  set(token: string, entry: Omit<VerifiedEntry, 'until' | 'token'>, expiresAtMs: number): void {
    if (this.seconds <= 0 || this.capacity <= 0) return;
    const until = Math.min(this.now() + this.seconds * 1000, expiresAtMs);
    if (until <= this.now()) return;
    const key = keyOf(token);
    // Oldest first: a Map iterates in insertion order.
    if (!this.entries.has(key) && this.entries.size >= this.capacity)
      this.entries.delete(this.entries.keys().next().value!);
    this.entries.delete(key);
    this.entries.set(key, { ...entry, token, until });
  }
}

/** The characters of a token that key VerifiedTokens: its last 32 (192 bits of its signature, base64url). */
const keyOf = (token: string): string => (token.length > 32 ? token.slice(-32) : token);

/**
 * Bearer JWT validation (issue 2 §6): issuer, audience, expiry and signature against the issuer's key set by URI,
 * cached (jose's remote key set: `cacheMaxAge`, and a refetch on an unknown kid no more often than `cooldown`, which
 * is how key rotation is followed). Header checks run first, so a forged token (alg none, HS256 with our public
 * key, a kid shaped like a path or SQL, jku/x5u elsewhere) is refused with no outbound fetch.
 */
export class JwtAuthenticator {
  private readonly keySets = new Map<string, KeySet>();
  private readonly verified: VerifiedTokens;

  constructor(private readonly options: JwtAuthenticatorOptions) {
    this.verified = new VerifiedTokens(
      options.verifiedCacheSeconds ?? 60,
      options.verifiedCacheEntries ?? 10_000,
      options.now ?? Date.now,
    );
  }

  get configured(): boolean {
    return this.options.issuers.length > 0;
  }

  private keySet(issuer: TrustedIssuer): KeySet {
    let ks = this.keySets.get(issuer.issuer);
    if (!ks) {
      const given = this.options.keySetFor?.(issuer);
      if (given) ks = { getKey: given, currentLoad: () => undefined };
      else {
        const maxAgeMs = this.options.jwksCacheSeconds * 1000;
        // Filled by jose on each load of the set: `jwks` the document fetched, `uat` the time (jose's remote.js).
        const loads: Partial<ExportedJWKSCache> = {};
        const getKey = createRemoteJWKSet(new URL(issuer.jwksUri), {
          cacheMaxAge: maxAgeMs,
          cooldownDuration: this.options.jwksCooldownSeconds * 1000,
          timeoutDuration: 5000,
          [jwksCache]: loads as ExportedJWKSCache,
        });
        // jose's own freshness test (isFreshFor): past it, its next key lookup reloads the set.
        ks = {
          getKey,
          currentLoad: () =>
            loads.jwks !== undefined && loads.uat !== undefined && Date.now() < loads.uat + maxAgeMs
              ? loads.jwks
              : undefined,
        };
      }
      this.keySets.set(issuer.issuer, ks);
    }
    return ks;
  }

  /**
   * The outcome of a token verified before, when it can be given without waiting: the token is remembered, and the
   * key that checked its signature is still served, known without a lookup because the issuer's key set has not
   * been loaded again since that key was found in it. Undefined otherwise; `authenticate` then decides.
   */
  rememberedNow(token: string): Verified | undefined {
    const known = this.verified.get(token);
    if (!known || known.keySetLoad === undefined) return undefined;
    return this.keySet(known.issuer).currentLoad() === known.keySetLoad ? known.value : undefined;
  }

  async authenticate(token: string): Promise<Verified> {
    const now = this.rememberedNow(token);
    if (now) return now;
    const known = this.verified.get(token);
    if (known) {
      const keySet = this.keySet(known.issuer);
      const found = await Promise.resolve()
        .then(() => this.findKey(keySet, known.header, { payload: '', signature: '' }))
        .catch(() => null);
      if (found && found.key !== undefined && found.key === known.key) {
        // The same key in the set as loaded now: later requests of this token skip the lookup until it reloads.
        known.keySetLoad = found.load;
        return known.value;
      }
      this.verified.forget(token);
    }
    return this.verify(token);
  }

  /**
   * The key for a token from the issuer's key set, and the load of the set it was found in when that is certain:
   * the set was fresh when the lookup started (jose reloads only a stale set, or on a key it does not know) and
   * was not loaded again before it ended.
   */
  private async findKey(
    keySet: KeySet,
    header: CompactJWSHeaderParameters,
    token: Parameters<JWTVerifyGetKey>[1],
  ): Promise<{ key: unknown; load: object | undefined }> {
    const before = keySet.currentLoad();
    const key: unknown = await keySet.getKey(header, token);
    return { key, load: before !== undefined && keySet.currentLoad() === before ? before : undefined };
  }

  private async verify(token: string): Promise<Verified> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    let unverified: JWTPayload;
    try {
      header = decodeProtectedHeader(token);
      unverified = decodeJwt(token);
    } catch (cause) {
      throw invalidToken('The access token is malformed.', cause);
    }
    if (!header.alg || !ASYMMETRIC.has(header.alg)) throw invalidToken('The access token algorithm is not accepted.');
    if (header.kid !== undefined && !SAFE_KID.test(header.kid))
      throw invalidToken('The access token key id is not accepted.');
    const issuer = this.options.issuers.find((i) => i.issuer === unverified.iss);
    if (!issuer) throw invalidToken('The access token issuer is not trusted.');
    if (!issuer.algorithms.includes(header.alg)) throw invalidToken('The access token algorithm is not accepted.');
    let payload: JWTPayload;
    const keySet = this.keySet(issuer);
    let used: { key: unknown; load: object | undefined } | undefined;
    try {
      ({ payload } = await jwtVerify(token, async (h, t) => (used = await this.findKey(keySet, h, t)).key as never, {
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
    const verified = { principal: this.toPrincipal(payload, issuer), payload };
    this.verified.set(
      token,
      {
        value: verified,
        issuer,
        header: header as CompactJWSHeaderParameters,
        key: used?.key,
        keySetLoad: used?.load,
      },
      (payload.exp! + this.options.clockToleranceSeconds) * 1000,
    );
    return verified;
  }

  /**
   * The token's tenant, roles and scopes checked against what its issuer may assert (issue 13 §1): a partner
   * authorization server trusted for one API cannot mint a platform administrator or act in another tenant.
   */
  private checkTrust(issuer: TrustedIssuer, principal: Principal): Principal {
    const refuse = (violation: TrustViolation) => new IssuerTrustError(violation, issuer.issuer, principal.id);
    const tenants = issuer.tenants ?? (this.options.defaultTenant ? [this.options.defaultTenant] : []);
    let tenantId = principal.tenantId;
    if (tenants !== 'any') {
      if (tenantId === null) {
        // A token that names no tenant acts in the one tenant its issuer serves, or in none.
        if (tenants.length !== 1) throw refuse('tenant');
        tenantId = tenants[0]!;
      } else if (!tenants.includes(tenantId)) throw refuse('tenant');
    }
    const roleAllowed = (role: string) =>
      issuer.roles === undefined
        ? role !== this.options.platformAdminRole
        : issuer.roles === 'any' || issuer.roles.includes(role);
    if (!principal.roles.every(roleAllowed)) throw refuse('role');
    const scopes = issuer.scopes;
    if (scopes !== undefined && scopes !== 'any' && !principal.scopes.every((s) => scopes.includes(s)))
      throw refuse('scope');
    return tenantId === principal.tenantId ? principal : { ...principal, tenantId };
  }

  private toPrincipal(payload: JWTPayload, issuer: TrustedIssuer): Principal {
    const list = (v: unknown): string[] =>
      Array.isArray(v)
        ? v.filter((x): x is string => typeof x === 'string')
        : typeof v === 'string'
          ? v.split(' ').filter(Boolean)
          : [];
    const clientId =
      typeof payload.azp === 'string' ? payload.azp : typeof payload.client_id === 'string' ? payload.client_id : null;
    const tenant = payload[this.options.tenantClaim];
    return this.checkTrust(issuer, {
      id: payload.sub!,
      kind: clientId !== null && clientId === payload.sub ? 'client' : 'user',
      tenantId: typeof tenant === 'string' ? tenant : null,
      roles: list(payload[this.options.rolesClaim]),
      scopes: list(payload.scope ?? payload.scp),
      clientId,
      issuer: issuer.issuer,
    });
  }
}
