import { ManualClock } from '@tessera/platform';
import type { TestDatabaseKind } from '@tessera/platform/testing';
import { decodeJwt, jwtVerify, createRemoteJWKSet, type JWTPayload } from 'jose';
import {
  createCredentialGrants,
  type CredentialGrants,
  type TokenServiceConfig,
  type WalletSessionRedeemer,
} from '../../src/index.js';
import { startTokenService, testTokenServiceConfig, type TokenServiceHarness } from '../support/harness.js';
import { postForm } from '../support/codes.js';

export const CREDENTIAL_ISSUER = 'https://issuer.demo.example';
/** The host of the tenant `beta`, which has no credential issuer. */
export const BETA_HOST = 'beta.localhost';
/** The scope a credential configuration publishes (§5.1.2): `diploma` asks for `diploma-vc`. */
export const CREDENTIAL_SCOPES = { diploma: 'diploma-vc' };
export const PRE_AUTH_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
/** The development wallet client of the authorization-code flow (a public client, PKCE S256). */
export const WALLET_CLIENT = 'dev-wallet';
export const WALLET_REDIRECT = 'http://127.0.0.1/wallet-callback';

export interface Oid4vciBed extends TokenServiceHarness {
  grants: CredentialGrants;
  clock: ManualClock;
  tokenEndpoint: string;
  /** POST /token with the pre-authorized code grant. */
  redeem(form: Record<string, string>, headers?: Record<string, string>): ReturnType<typeof postForm>;
  /** Verifies an access token against the token service's JWKS, as the credential issuer does (contract B). */
  verifyAccessToken(token: string): Promise<JWTPayload>;
}

/**
 * The token service with OpenID4VCI grants for the demo tenant (credential issuer CREDENTIAL_ISSUER; the `beta`
 * tenant has none), DPoP on unless told otherwise, a hand-moved clock, and the issuer's side of contract A.
 */
export async function startOid4vciBed(
  kind: TestDatabaseKind,
  options: {
    oid4vci?: Partial<TokenServiceConfig['oid4vci']>;
    dpop?: boolean;
    upstream?: boolean;
    wallet?: WalletSessionRedeemer;
  } = {},
): Promise<Oid4vciBed> {
  const base = testTokenServiceConfig();
  const clients = {
    ...base.clients,
    [WALLET_CLIENT]: {
      'redirect-uris': [WALLET_REDIRECT],
      'grant-types': ['authorization_code'],
      scopes: ['openid'],
    },
  } as unknown as TokenServiceConfig['clients'];
  const h = await startTokenService({
    kind,
    upstream: options.upstream ?? false,
    ...(options.wallet ? { wallet: options.wallet } : {}),
    config: {
      clients,
      dpop: { ...base.dpop, enabled: options.dpop ?? true },
      oid4vci: { ...base.oid4vci, ...options.oid4vci },
    },
  });
  await h.platform.tenants.ensure({ id: 'beta', displayName: 'Beta', hostNames: [BETA_HOST] });
  await h.platform.tenants.load();
  const clock = new ManualClock(new Date());
  h.ctx.clock = clock;
  (h.ctx as { credentialIssuerFor: (t: string) => string | undefined }).credentialIssuerFor = (tenantId) =>
    tenantId === 'demo' ? CREDENTIAL_ISSUER : undefined;
  (h.ctx as { credentialScopes: Record<string, string> }).credentialScopes = CREDENTIAL_SCOPES;
  const tokenEndpoint = `${h.issuer}/token`;
  const jwks = createRemoteJWKSet(new URL(`${h.issuer}/.well-known/jwks.json`));
  return {
    ...h,
    clock,
    tokenEndpoint,
    grants: createCredentialGrants(h.platform, { config: h.config.oid4vci }),
    redeem: (form, headers = {}) => postForm(tokenEndpoint, { grant_type: PRE_AUTH_GRANT, ...form }, headers),
    async verifyAccessToken(token) {
      const { payload, protectedHeader } = await jwtVerify(token, jwks, {
        issuer: h.issuer,
        audience: CREDENTIAL_ISSUER,
        currentDate: clock.now(),
      });
      if (protectedHeader.typ !== 'at+jwt') throw new Error(`typ ${protectedHeader.typ}`);
      return payload;
    },
  };
}

export const claimsOf = (token: string) => decodeJwt(token);
