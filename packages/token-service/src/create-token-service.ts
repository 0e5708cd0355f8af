import formbody from '@fastify/formbody';
import { JsonSealer, UpstreamOidcClient, type JobDefinition, type Platform, type RoleApp } from '@tessera/platform';
import type { IdentityStore } from '@tessera/identity';
import type { TokenServiceConfig } from './config.js';
import type { TokenServiceContext } from './context.js';
import { ClientRegistry } from './clients/client-registry.js';
import { ClientSecretVerifier } from './clients/client-secret.js';
import { TokenSigner } from './tokens/token-signer.js';
import { HttpBridgeClient, type WalletSessionRedeemer } from './wallet/bridge-client.js';
import { registerDiscoveryRoutes } from './http/routes/discovery.js';
import { registerAuthorizeRoutes } from './http/routes/authorize.js';
import { registerTokenRoutes } from './http/routes/token.js';
import { registerInternalRoutes } from './http/routes/internal.js';
import { grantStore } from './storage/grant-store.js';
import { ServiceTokenMinter } from './tokens/service-token.js';
import { TokenServiceDpop } from './dpop/token-service-dpop.js';
import { GrantRedemptions } from './storage/grant-redemptions.js';
import { purgeCredentialGrants } from './oid4vci/purge-credential-grants.js';
import { grantClaimsAad, TOKEN_SERVICE_SEALING_ALIAS, upstreamVerifierAad } from './storage/sealed-fields.js';

export interface CreateTokenServiceOptions {
  identities: IdentityStore;
  /** Override the bridge client (tests, or an in-process bridge). */
  wallet?: WalletSessionRedeemer | null;
  upstream?: UpstreamOidcClient | null;
  /**
   * The credential issuer of a tenant (issue 19 contract C: the composition root passes the issuer's
   * `credentialIssuerFor(config.oid4vci)`). Absent: no tenant has one, and the OpenID4VCI grants are refused.
   */
  credentialIssuerFor?: (tenantId: string) => string | undefined;
  /** The `scope` of each credential configuration that has one (scope → configuration id; §5.1.2). */
  credentialScopes?: Record<string, string>;
}

/** Builds the token service's context from configuration; fails with a message naming the bad key. */
export function createTokenService(
  platform: Platform,
  config: TokenServiceConfig,
  options: CreateTokenServiceOptions,
): TokenServiceContext {
  const clients = new ClientRegistry(config.clients, platform.config.tenancy.defaultTenant, {
    production: platform.config.profile === 'production',
  });
  const signer = new TokenSigner(platform.keys);
  const issuerFor = (tenantId: string) => (config.tenantIssuers[tenantId] ?? config.issuer).replace(/\/$/, '');
  const up = config.upstream;
  const upstream =
    options.upstream !== undefined
      ? options.upstream
      : up.issuer && up.clientId && up.clientSecret
        ? new UpstreamOidcClient({
            issuer: up.issuer,
            clientId: up.clientId,
            clientSecret: up.clientSecret,
            scopes: up.scopes,
            timeoutSeconds: up.timeoutSeconds,
          })
        : null;
  const minter = new ServiceTokenMinter(signer, platform.clock, issuerFor);
  const wallet =
    options.wallet !== undefined
      ? options.wallet
      : new HttpBridgeClient({
          url: config.bridge.url.replace(/\/$/, ''),
          timeoutSeconds: config.bridge.timeoutSeconds,
          serviceToken: (tenantId) =>
            minter.token(tenantId, { audience: config.bridge.audience, scope: config.bridge.redeemScope }),
        });
  const ctx: TokenServiceContext = {
    sealer: new JsonSealer(platform.keys, TOKEN_SERVICE_SEALING_ALIAS),
    platform,
    config,
    clock: platform.clock,
    clients,
    secrets: new ClientSecretVerifier(config.clientSecretCacheSeconds),
    signer,
    identities: options.identities,
    upstream,
    wallet,
    // Reads the context's clock at each call, so that a clock set on the context later is the one used.
    dpop: new TokenServiceDpop(platform, config.dpop, () => ctx.clock.now()),
    redemptions: new GrantRedemptions(platform.db),
    serviceClaim: platform.config.deployment.serviceClaim,
    walletAcr: `urn:${platform.config.deployment.acrVendor}:oid4vp:vp`,
    issuerFor,
    credentialIssuerFor: options.credentialIssuerFor ?? (() => undefined),
    credentialScopes: options.credentialScopes ?? {},
  };
  return ctx;
}

/**
 * Binds the credential issuer of each tenant to a token service built without it (issue 19 contract C): the
 * composition root passes the issuer's `credentialIssuerFor(config.oid4vci)` and the scopes its credential
 * configurations publish. Idempotent; both token listeners call it with the same binding.
 */
export function bindCredentialIssuer(
  ctx: TokenServiceContext,
  binding: { credentialIssuerFor: (tenantId: string) => string | undefined; credentialScopes?: Record<string, string> },
): void {
  ctx.credentialIssuerFor = binding.credentialIssuerFor;
  ctx.credentialScopes = binding.credentialScopes ?? {};
}

/**
 * Registers the OAuth 2.0 / OIDC endpoints on a role app (000 §4.4). Both token ports serve them (internal 8080
 * for the portal and relying parties inside the deployment, external 8092 behind the public gateway).
 */
export async function registerTokenServiceRoutes(
  app: RoleApp,
  ctx: TokenServiceContext,
  options: { internal: boolean } = { internal: true },
): Promise<void> {
  await app.register(formbody);
  registerDiscoveryRoutes(app, ctx);
  registerAuthorizeRoutes(app, ctx);
  await registerTokenRoutes(app, ctx);
  if (options.internal) registerInternalRoutes(app, ctx);
}

/**
 * Signing keys exist before the first request, for every tenant served (so the key set is never empty); with
 * DPoP on, the replay store's connection is ready.
 */
export async function prepareTokenService(ctx: TokenServiceContext): Promise<void> {
  for (const tenant of ctx.platform.tenants.list()) await ctx.signer.ensureKey(tenant.id);
  if (ctx.dpop.enabled) await ctx.platform.dpopReplay.ready();
}

/**
 * Removes expired codes, login transactions, refresh tokens, revocation records and grants, every 15 minutes (the
 * DPoP replay rows are the platform's job).
 */
export function grantPurgeJob(ctx: TokenServiceContext): JobDefinition {
  return {
    name: 'token-service.grants.purge',
    intervalSeconds: 900,
    critical: false,
    run: async () => {
      for (const tenant of ctx.platform.tenants.list()) {
        await ctx.platform.db.withTenant(tenant.id, (sql) => grantStore.purgeExpired(sql, ctx.clock.now()));
        await ctx.platform.db.withTenant(tenant.id, (sql) => purgeCredentialGrants(sql, ctx.clock.now()));
      }
    },
  };
}

/**
 * Seals the personal data that rows written before migration 0003 hold in plaintext (issue 13 §4): the claims of
 * grants and the upstream verifiers of logins in progress, in batches per tenant, each row's plaintext column
 * emptied as its sealed value is written. Runs once across replicas every hour; after the first run it finds nothing.
 */
export function sealPersonalDataJob(ctx: TokenServiceContext): JobDefinition {
  const batch = 500;
  return {
    name: 'token-service.personal-data.seal',
    intervalSeconds: 3600,
    critical: false,
    run: async () => {
      for (const tenant of ctx.platform.tenants.list()) {
        for (;;) {
          const sealed = await ctx.platform.db.withTenant(tenant.id, async (sql) => {
            const grants = await grantStore.unsealedGrantClaims(sql, batch);
            for (const g of grants)
              await grantStore.sealGrantClaims(
                sql,
                g.id,
                await ctx.sealer.sealJson(g.claims, grantClaimsAad(tenant.id, g.id), sql),
              );
            const logins = await grantStore.unsealedUpstreamVerifiers(sql, batch);
            for (const l of logins)
              await grantStore.sealUpstreamVerifier(
                sql,
                l.id,
                await ctx.sealer.sealJson(l.verifier, upstreamVerifierAad(tenant.id, l.id), sql),
              );
            return grants.length + logins.length;
          });
          if (sealed === 0) break;
        }
      }
    },
  };
}
