import { createHash } from 'node:crypto';
import { importJWK, jwtVerify, decodeProtectedHeader, type JWK, type JWTPayload, type KeyObject } from 'jose';
import { Oauth2AuthorizationServer, HashAlgorithm, type CallbackContext } from '@openid4vc/oauth2';
import { secureRandomBytes, signJwt, signJwtWithKey, type KeyManager } from '@tessera/platform';

/** Every token of a tenant is signed by its own RS256 key (000 §5), through the key-management layer. */
export const signingKeyAlias = (tenantId: string) => `token-service:${tenantId}:rs256`;

/**
 * Signs and verifies the token service's JWTs. Signing goes through the KeyManager (keys rotate without
 * breaking tokens in flight: retired keys stay in the key set until their tokens expire). The
 * @openid4vc/oauth2 authorization-server building blocks create the RFC 9068 access tokens; their crypto
 * callbacks are wired here.
 */
export class TokenSigner {
  private readonly verificationKeys = new Map<string, Promise<KeyObject | Uint8Array>>();
  private readonly servers = new Map<string, Oauth2AuthorizationServer>();

  constructor(private readonly keys: KeyManager) {}

  /** The @openid4vc/oauth2 authorization server whose signing callback uses this tenant's key. */
  oauth2For(tenantId: string): Oauth2AuthorizationServer {
    let server = this.servers.get(tenantId);
    if (!server) {
      server = new Oauth2AuthorizationServer({ callbacks: this.callbacks(tenantId) });
      this.servers.set(tenantId, server);
    }
    return server;
  }

  /** Callbacks of @openid4vc/oauth2 bound to one tenant's signing key (`null`: verification only). */
  callbacks(tenantId: string | null): Omit<CallbackContext, 'decryptJwe' | 'encryptJwe'> {
    const keys = this.keys;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the callbacks object is handed to the library
    const self = this;
    return {
      hash: (data, alg) =>
        createHash(alg === HashAlgorithm.Sha384 ? 'sha384' : alg === HashAlgorithm.Sha512 ? 'sha512' : 'sha256')
          .update(data)
          .digest(),
      generateRandom: (n) => secureRandomBytes(n),
      signJwt: async (_signer, { header, payload }) => {
        if (tenantId === null) throw new Error('no signing tenant');
        if (!self.keyExists.has(tenantId)) await self.ensureKey(tenantId);
        const { jwt, publicJwk } = await signJwtWithKey(
          keys,
          signingKeyAlias(tenantId),
          payload as Record<string, unknown>,
          header as Record<string, unknown>,
        );
        return { jwt, signerJwk: publicJwk as never };
      },
      verifyJwt: async () => {
        throw new Error('not used');
      },
      fetch,
      clientAuthentication: () => undefined,
    } as Omit<CallbackContext, 'decryptJwe' | 'encryptJwe'>;
  }

  private readonly ensured = new Map<string, Promise<void>>();
  /** Tenants whose key is known to exist: a signature needs no wait on ensureKey's settled promise. */
  private readonly keyExists = new Set<string>();

  /** The tenant's signing key exists (created on first use: a tenant added at run time gets one too). */
  ensureKey(tenantId: string): Promise<void> {
    let pending = this.ensured.get(tenantId);
    if (!pending) {
      pending = this.keys.ensure(signingKeyAlias(tenantId), 'RS256').then(() => void this.keyExists.add(tenantId));
      this.ensured.set(tenantId, pending);
      pending.catch(() => this.ensured.delete(tenantId));
    }
    return pending;
  }

  /**
   * The tenant's active key is in memory and needs no re-read for the moment: a caller about to commit reads it
   * first, so that a database lost right after its commit cannot fail the signatures of its answer (issue 13 §7).
   */
  async holdKeyReady(tenantId: string): Promise<void> {
    if (!this.keyExists.has(tenantId)) await this.ensureKey(tenantId);
    const alias = signingKeyAlias(tenantId);
    if (!this.keys.readyActiveSigningKey(alias)) await this.keys.activeSigningKey(alias);
  }

  async sign(
    tenantId: string,
    payload: Record<string, unknown>,
    header: Record<string, unknown> = {},
  ): Promise<string> {
    if (!this.keyExists.has(tenantId)) await this.ensureKey(tenantId);
    return signJwt(this.keys, signingKeyAlias(tenantId), payload, header);
  }

  async jwks(tenantId: string): Promise<{ keys: JWK[] }> {
    await this.ensureKey(tenantId);
    return { keys: await this.keys.publishedJwks(signingKeyAlias(tenantId)) };
  }

  /**
   * Verifies one of our own JWTs: signature by a published key of this tenant (the kid must belong to the
   * tenant's alias), issuer, expiry at `now` (the service's clock, the one that set `exp`). Answers null for
   * anything invalid: callers answer `active: false` or 401.
   */
  async verifyOwn(
    tenantId: string,
    token: string,
    expected: { issuer: string; typ?: string; now: Date },
  ): Promise<JWTPayload | null> {
    const { issuer, typ } = expected;
    let kid: string | undefined;
    try {
      const header = decodeProtectedHeader(token);
      if (header.alg !== 'RS256' || (typ !== undefined && header.typ !== typ)) return null;
      kid = header.kid;
    } catch {
      return null;
    }
    if (!kid) return null;
    const key = await this.verificationKey(tenantId, kid);
    if (!key) return null;
    try {
      const { payload } = await jwtVerify(token, key, { issuer, algorithms: ['RS256'], currentDate: expected.now });
      return payload;
    } catch {
      return null;
    }
  }

  private async verificationKey(tenantId: string, kid: string): Promise<KeyObject | Uint8Array | null> {
    const cacheKey = `${tenantId}\u0000${kid}`;
    let pending = this.verificationKeys.get(cacheKey);
    if (!pending) {
      await this.ensureKey(tenantId);
      const published = await this.keys.publishedJwks(signingKeyAlias(tenantId));
      const jwk = published.find((k) => k.kid === kid);
      // A kid of another tenant's key, or an unknown one, never verifies here.
      if (!jwk) return null;
      pending = importJWK(jwk, 'RS256') as Promise<KeyObject | Uint8Array>;
      this.verificationKeys.set(cacheKey, pending);
    }
    return pending;
  }
}
