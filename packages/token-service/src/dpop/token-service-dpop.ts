import {
  DEFAULT_IAT_WINDOW_SECONDS,
  DpopError,
  dpopChallenge,
  verifyDpopProof,
  type DpopVerificationAlg,
} from '@tessera/pkce-dpop';
import type { AppError, DpopReplayStores, Platform } from '@tessera/platform';
import type { TokenServiceConfig } from '../config.js';
import { oauthError } from '../domain/oauth-error.js';
import { DpopNonces } from './dpop-nonces.js';

/** The proof algorithms accepted and published as `dpop_signing_alg_values_supported` (RFC 9449 §5.1). */
export const DPOP_ALGS: readonly DpopVerificationAlg[] = ['ES256', 'ES384'];

/** A request's DPoP header as the HTTP layer hands it over (absent, one value, or repeated). */
export type DpopHeader = string | readonly string[] | undefined;

export interface ResourceProof {
  header: DpopHeader;
  httpMethod: string;
  /** The endpoint URL as the issuer publishes it (behind the gateway: the external URL). */
  httpUrl: string;
  accessToken: string;
  /** The token's `cnf.jkt` (RFC 9449 §6.1). */
  jkt: string;
}

/**
 * DPoP at the token service (RFC 9449): proof verification at the token endpoint (§5) and at the userinfo
 * resource (§7), server nonces (§8, §9) and replay state (§11.1). Every method may open units of work of its own
 * (replay table, nonce key): call them before, never inside, a tenant unit of work.
 */
export class TokenServiceDpop {
  readonly algs = DPOP_ALGS;
  private readonly nonces: DpopNonces;
  /** The platform's replay state (RFC 9449 §11.1), shared with the other endpoints that check proofs. */
  readonly replay: DpopReplayStores;
  private readonly config: Partial<TokenServiceConfig['dpop']>;

  /** `config` is read at each request (as the rest of the token service reads its configuration). */
  constructor(
    platform: Platform,
    config: Partial<TokenServiceConfig['dpop']> | undefined,
    private readonly now: () => Date,
  ) {
    this.config = config ?? {};
    const secret = this.config.nonceSecret;
    this.nonces = new DpopNonces(secret ? { secret: Buffer.from(secret, 'base64url') } : { keys: platform.keys }, now);
    this.replay = platform.dpopReplay.withClock({ now });
  }

  get enabled(): boolean {
    return this.config.enabled === true;
  }

  get nonceRequired(): boolean {
    return this.config.nonceRequired === true;
  }

  get iatWindowSeconds(): number {
    return this.config.iatWindowSeconds ?? DEFAULT_IAT_WINDOW_SECONDS;
  }

  /**
   * The token endpoint (RFC 9449 §5): with DPoP on and a DPoP header present, verifies the proof for POST to the
   * published token endpoint URL and answers its key's thumbprint; null when DPoP is off or no proof was sent (the
   * grant decides whether one was needed). A bad proof is 400 invalid_dpop_proof; a missing or stale nonce is 400
   * use_dpop_nonce with a fresh `DPoP-Nonce` (§8).
   */
  async verifyTokenRequest(
    tenantId: string,
    tokenEndpoint: string,
    header: DpopHeader,
    /** OpenID4VCI grants (HAIP 1.0) honour a proof even while `dpop.enabled` is off for the other grants. */
    options: { always?: boolean } = {},
  ): Promise<string | null> {
    if ((!this.enabled && options.always !== true) || header === undefined) return null;
    try {
      const verified = await this.verify(tenantId, { dpopProof: header, httpMethod: 'POST', httpUrl: tokenEndpoint });
      return verified.jwkThumbprint;
    } catch (error) {
      if (!(error instanceof DpopError)) throw error;
      const code = error.code === 'use_dpop_nonce' ? 'use_dpop_nonce' : 'invalid_dpop_proof';
      throw oauthError(code, error.description, { status: 400, headers: await this.nonceHeaderFor(tenantId, error) });
    }
  }

  /**
   * A protected resource (RFC 9449 §7.1): the proof must be for this method and URL, carry the `ath` of the token,
   * be signed by the token's `cnf.jkt` key, and be fresh. Failures are 401 with a DPoP challenge listing `algs`.
   */
  async verifyResourceRequest(tenantId: string, proof: ResourceProof): Promise<void> {
    try {
      await this.verify(tenantId, {
        dpopProof: proof.header,
        httpMethod: proof.httpMethod,
        httpUrl: proof.httpUrl,
        accessToken: proof.accessToken,
        expectedJwkThumbprint: proof.jkt,
      });
    } catch (error) {
      if (!(error instanceof DpopError)) throw error;
      throw this.resourceError(error.code, error.description, await this.nonceHeaderFor(tenantId, error));
    }
  }

  /** A 401 of the userinfo resource with `WWW-Authenticate: DPoP error=..., algs=...` (RFC 9449 §7.1). */
  resourceError(
    code: 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce',
    description: string,
    headers: Record<string, string> = {},
  ): AppError {
    return oauthError(code, description, {
      status: 401,
      headers: { ...headers, 'www-authenticate': this.challenge(code, description) },
    });
  }

  /** A `WWW-Authenticate` value of the DPoP scheme that names the accepted algorithms (RFC 9449 §7.1). */
  challenge(code: string, description?: string): string {
    return dpopChallenge({ code, ...(description === undefined ? {} : { description }) }, { algs: this.algs });
  }

  /** `WWW-Authenticate` of a request without a token: both schemes when DPoP is on (RFC 9449 §7.1, RFC 6750 §3). */
  unauthenticatedChallenge(): string {
    return this.enabled ? `Bearer, ${dpopChallenge(null, { algs: this.algs })}` : 'Bearer';
  }

  /** Headers of a successful answer to a DPoP request: the current nonce when nonces are required (§8.2, §9). */
  async responseHeaders(tenantId: string, header: DpopHeader): Promise<Record<string, string>> {
    if (!this.enabled || !this.nonceRequired || header === undefined) return {};
    return { 'dpop-nonce': await this.nonces.issue(tenantId) };
  }

  private verify(
    tenantId: string,
    options: {
      dpopProof: DpopHeader;
      httpMethod: string;
      httpUrl: string;
      accessToken?: string;
      expectedJwkThumbprint?: string;
    },
  ) {
    return verifyDpopProof({
      ...options,
      expectedNonce: this.nonceRequired ? this.nonces.validator(tenantId) : null,
      allowedSigningAlgs: this.algs,
      replayStore: this.replay.forTenant(tenantId),
      now: this.now(),
      iatWindowSeconds: this.iatWindowSeconds,
    });
  }

  private async nonceHeaderFor(tenantId: string, error: DpopError): Promise<Record<string, string>> {
    return error.code === 'use_dpop_nonce' ? { 'dpop-nonce': await this.nonces.issue(tenantId) } : {};
  }
}
