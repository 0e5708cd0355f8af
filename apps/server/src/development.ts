import { dirname, join } from 'node:path';
import { DEV_IDP_ACR, startDevIdentityProvider } from '@tessera/dev-idp';
import { DEMO_VCT, loadOrCreateDevelopmentIssuer } from '@tessera/test-wallet';
import { ConfigError, type Platform } from '@tessera/platform';
import { issuerKeyAlias } from '@tessera/oid4vci-issuer';
import { RECONCILIATION_SCOPES } from '@tessera/bridge';
import { DEMO_TENANT } from '@tessera/platform';
import { DEV_WALLET_CLIENT_ID } from '@tessera/token-service';
import type { ServerConfig } from './config.js';

export const DEMO_RP = { clientId: 'demo-rp', secret: 'demo-rp-secret' };
/** The demo relying party's redirect URI: on its configured port (8400 by default), so the demo runs on other ports. */
export const demoRpRedirectUri = (config: ServerConfig) => `http://127.0.0.1:${config.server.ports.demoRp}/callback`;
export const DEV_PORTAL_CLIENT = { clientId: 'tessera-portal', secret: 'tessera-portal-dev-secret' };
/** The credential configuration of the development profile's issuer (packages/oid4vci-issuer README, Try it). */
export const DEMO_CREDENTIAL_CONFIGURATION = 'tessera.demo.pid';
/**
 * The development profile's login credential (README "Try it", the whole loop): an SD-JWT VC of the test wallet's
 * type with the wallet-login query's claims, so that `npm run wallet -- receive` takes it from our issuer and the
 * bridge accepts it at the demo relying party.
 */
export const DEMO_LOGIN_CREDENTIAL_CONFIGURATION = 'tessera.demo.login';
/** The development administrator (client_credentials; the demo tenant's administrator role in its tokens). */
export const DEV_ADMIN_CLIENT = { clientId: 'tessera-admin', secret: 'tessera-admin-dev-secret' };
const DEV_FEDERATION_CLIENT = { clientId: 'tessera-federation', secret: 'tessera-federation-dev-secret' };

/** The audiences of service-to-service tokens and of the external reconciliation API. */
export const SERVICE_AUDIENCE = 'tessera-services';

/**
 * The deployment trusts its own token service as an issuer of bearer tokens (service-to-service calls between
 * portal, bridge and token service; the external API's client_credentials tokens), unless configured otherwise.
 */
export function trustOwnTokenService(config: ServerConfig): void {
  const issuer = config.tokenService.issuer.replace(/\/$/, '');
  // Issue 13 §1: only the deployment's own token service may act in any tenant; every other issuer names its tenants.
  config.auth.issuers.forEach((entry, i) => {
    if (entry.issuer !== issuer && entry.tenants === 'any')
      throw new ConfigError(
        `auth.issuers[${i}].tenants`,
        '"any" is reserved for the deployment\'s own token service: name the tenants this issuer may act in',
      );
  });
  // External-API clients are bound to an issuer: by default, this deployment's token service.
  for (const client of Object.values(config.bridge.reconciliation.clients)) client.issuer ??= issuer;
  if (config.auth.issuers.some((i) => i.issuer === issuer)) return;
  config.auth.issuers.push({
    issuer,
    jwksUri: `${issuer}/.well-known/jwks.json`,
    audience: [SERVICE_AUDIENCE, 'tessera-reconciliation'],
    algorithms: ['RS256'],
    tenants: 'any',
    roles: 'any',
    scopes: 'any',
  });
}

export interface DevelopmentPlan {
  announcements: string[];
  startIdentityProvider: boolean;
  startDemoRelyingParty: boolean;
  /** The wallet login also trusts the demo tenant's credential issuer key (`trustDemoCredentialIssuer`). */
  trustDemoCredentialIssuer: boolean;
}

/** Where the test wallet keeps its issuer and holders (`npm run wallet` uses the same directory). */
export const testWalletDataDir = (config: ServerConfig) => join(dirname(config.database.dataDir), 'test-wallet');

/**
 * The development profile (issue 3 §10): a demo client, the portal's service client and the embedded
 * institutional provider, each only when the operator configured nothing in its place, and each announced.
 * Nothing here applies outside NODE_ENV=development.
 */
export async function applyDevelopmentProfile(config: ServerConfig): Promise<DevelopmentPlan> {
  const plan: DevelopmentPlan = {
    announcements: [],
    startIdentityProvider: false,
    startDemoRelyingParty: false,
    trustDemoCredentialIssuer: false,
  };
  if (config.profile !== 'development') return plan;
  const clients = config.tokenService.clients;
  if (!clients[DEMO_RP.clientId]) {
    clients[DEMO_RP.clientId] = {
      'client-secret': `{plain}${DEMO_RP.secret}`,
      'client-name': 'Demo relying party',
      'redirect-uris': [demoRpRedirectUri(config)],
      'grant-types': ['authorization_code', 'refresh_token'],
      scopes: ['openid', 'profile', 'email', config.deployment.serviceClaim, 'offline_access'],
    } as (typeof clients)[string];
    plan.announcements.push(
      `demo client "${DEMO_RP.clientId}" (secret "${DEMO_RP.secret}", redirect ${demoRpRedirectUri(config)})`,
    );
  }
  if (!clients[DEV_PORTAL_CLIENT.clientId]) {
    clients[DEV_PORTAL_CLIENT.clientId] = {
      'client-secret': `{plain}${DEV_PORTAL_CLIENT.secret}`,
      'grant-types': ['client_credentials'],
      scopes: ['bridge:sessions', 'token-service:authorization-check'],
      audience: SERVICE_AUDIENCE,
    } as (typeof clients)[string];
    plan.announcements.push(`portal service client "${DEV_PORTAL_CLIENT.clientId}" with a development secret`);
  }
  if (!clients[DEV_ADMIN_CLIENT.clientId]) {
    clients[DEV_ADMIN_CLIENT.clientId] = {
      'client-secret': `{plain}${DEV_ADMIN_CLIENT.secret}`,
      'grant-types': ['client_credentials'],
      scopes: ['bridge:sessions', ...Object.values(RECONCILIATION_SCOPES)],
      audience: SERVICE_AUDIENCE,
      roles: [config.auth.tenantAdminRole],
    } as (typeof clients)[string];
    plan.announcements.push(
      `administrator client "${DEV_ADMIN_CLIENT.clientId}" (secret "${DEV_ADMIN_CLIENT.secret}", client_credentials, role ${config.auth.tenantAdminRole} of the demo tenant)`,
    );
  }
  if (!clients[DEV_WALLET_CLIENT_ID]) {
    // Issue 19: a wallet's public client for the OpenID4VCI authorization code flow (PKCE, no secret; the loopback
    // port may vary). The registry refuses it under NODE_ENV=production.
    clients[DEV_WALLET_CLIENT_ID] = {
      'client-name': 'Development wallet',
      'redirect-uris': ['http://127.0.0.1/wallet-callback'],
      'grant-types': ['authorization_code'],
      scopes: ['openid'],
    } as (typeof clients)[string];
    plan.announcements.push(
      `public wallet client "${DEV_WALLET_CLIENT_ID}" for OpenID4VCI (redirect http://127.0.0.1:<any port>/wallet-callback)`,
    );
  }
  if (!config.portal.clientSecret) {
    config.portal.clientSecret = DEV_PORTAL_CLIENT.secret;
  }
  if (config.roles.includes('portal')) {
    plan.startDemoRelyingParty = true;
    plan.announcements.push(`demo relying party at ${demoRpRedirectUri(config).replace('/callback', '')}`);
  }
  if (Object.keys(config.oid4vci.tenants).length === 0) {
    // 001 §5 tenant_public_endpoint: the demo tenant's credential issuer is the issuance role on this machine.
    config.oid4vci.tenants[DEMO_TENANT] = {
      credentialIssuer: `http://127.0.0.1:${config.server.ports.issuance}`,
      display: [{ name: 'Tessera demo issuer', locale: 'en' }],
    };
    plan.announcements.push(
      `OpenID4VCI credential issuer of the demo tenant at http://127.0.0.1:${config.server.ports.issuance}`,
    );
    // HAIP asks DPoP at the credential endpoint; without DPoP at the token service the demo takes bearer tokens.
    if (!config.tokenService.dpop.enabled) config.oid4vci.dpopRequired = false;
  }
  if (Object.keys(config.oid4vci.credentialConfigurations).length === 0) {
    // A demo SD-JWT VC on an inline pipeline: an offer's credentialDataSupplierInput supplies its claims.
    config.oid4vci.credentialConfigurations[DEMO_CREDENTIAL_CONFIGURATION] = {
      format: 'dc+sd-jwt',
      vct: 'urn:tessera:demo:pid',
      scope: 'demo_pid',
      deferrable: false,
      design: true,
      validitySeconds: 31_536_000,
      display: [{ name: 'Tessera demo ID', locale: 'en' }],
      claims: ['given_name', 'family_name', config.deployment.serviceClaim].map((path) => ({
        path,
        mandatory: true,
        selectivelyDisclosable: true,
        display: [],
      })),
    };
    plan.announcements.push(`demo credential configuration "${DEMO_CREDENTIAL_CONFIGURATION}" (dc+sd-jwt)`);
    // The wallet-login query (000 §2.2) asks the service claim and eduperson_principal_name, and takes email,
    // given_name and family_name when present: the login credential carries the same.
    const claim = (path: string, mandatory: boolean) => ({
      path,
      mandatory,
      selectivelyDisclosable: true,
      display: [],
    });
    config.oid4vci.credentialConfigurations[DEMO_LOGIN_CREDENTIAL_CONFIGURATION] = {
      format: 'dc+sd-jwt',
      vct: DEMO_VCT,
      scope: 'demo_login',
      deferrable: false,
      design: true,
      validitySeconds: 31_536_000,
      display: [{ name: 'Tessera demo login', locale: 'en' }],
      claims: [
        claim(config.deployment.serviceClaim, true),
        claim('eduperson_principal_name', true),
        claim('email', false),
        claim('given_name', false),
        claim('family_name', false),
      ],
    };
    plan.announcements.push(
      `demo credential configuration "${DEMO_LOGIN_CREDENTIAL_CONFIGURATION}" (dc+sd-jwt, vct ${DEMO_VCT}, accepted by the wallet login)`,
    );
  }
  const login = config.bridge.walletLogin;
  if (login.trustedIssuers.length === 0) {
    // The test wallet's issuer (`npm run wallet`), and its status lists on 127.0.0.1:8500 while the wallet runs.
    const issuer = await loadOrCreateDevelopmentIssuer(testWalletDataDir(config));
    login.trustedIssuers = [issuer.issuerId];
    login.type = DEMO_VCT;
    await issuer.close();
    config.bridge.statusListCache.allowPrivateNetworkOrigins.push('http://127.0.0.1:8500');
    plan.announcements.push(
      `wallet login trusts the test wallet's issuer ${issuer.issuerId.slice(0, 24)}… (npm run wallet)`,
    );
    if (config.oid4vci.tenants[DEMO_TENANT]) {
      // The loop of README "Try it": credentials of the demo tenant's own issuer sign in too; their status lists are
      // published by the status-lists role, on this machine.
      plan.trustDemoCredentialIssuer = true;
      const statusOrigin = new URL(config.statusLists.publicBaseUrl).origin;
      if (!config.bridge.statusListCache.allowPrivateNetworkOrigins.includes(statusOrigin))
        config.bridge.statusListCache.allowPrivateNetworkOrigins.push(statusOrigin);
    }
  }
  const upstream = config.tokenService.upstream;
  if (!upstream.issuer) {
    upstream.issuer = `http://127.0.0.1:${config.server.ports.devIdp}`;
    upstream.clientId = DEV_FEDERATION_CLIENT.clientId;
    upstream.clientSecret = DEV_FEDERATION_CLIENT.secret;
    upstream.scopes = ['openid', 'profile', 'email', config.deployment.serviceClaim];
    upstream.acrValues = [DEV_IDP_ACR];
    plan.startIdentityProvider = true;
    plan.announcements.push(
      `embedded institutional OpenID provider at ${upstream.issuer} (demo users alice, bob, carol; password <name>-password)`,
    );
  }
  const idv = config.bridge.idv;
  if (!idv.provider.issuer && plan.startIdentityProvider) {
    // Identity verification (000 §4.2) at the same embedded provider, with the same development client.
    idv.provider.issuer = upstream.issuer;
    idv.provider.clientId = DEV_FEDERATION_CLIENT.clientId;
    idv.provider.clientSecret = DEV_FEDERATION_CLIENT.secret;
    idv.portalUrl = config.portal.publicUrl;
    // 000 §8: 10 to 15 minutes are recommended when IDV is used.
    if (config.bridge.sessionTimeoutSeconds < 600) config.bridge.sessionTimeoutSeconds = 900;
  }
  return plan;
}

/**
 * The other half of `plan.trustDemoCredentialIssuer`, once the key manager is there: the wallet login trusts the
 * demo tenant's credential signing key (created now if the issuer has not made it yet), pinned as JWKs of the
 * trusted-issuer list, as the issuer publishes them at /.well-known/jwt-vc-issuer. A rotation of that key takes a
 * restart to be trusted.
 */
export async function trustDemoCredentialIssuer(platform: Platform, config: ServerConfig): Promise<string> {
  const alias = issuerKeyAlias(DEMO_TENANT);
  await platform.keys.ensure(alias, 'ES256');
  const login = config.bridge.walletLogin;
  for (const jwk of await platform.keys.publishedJwks(alias)) {
    const value = JSON.stringify(jwk);
    if (!login.trustedIssuers.some((entry) => typeof entry !== 'string' && entry.value === value))
      login.trustedIssuers.push({ kind: 'jwk', value });
  }
  return `wallet login trusts the demo tenant's credential issuer key (${alias}) for ${login.type}`;
}

/** Starts the embedded institutional provider of the development profile. */
export async function startDevelopmentIdentityProvider(config: ServerConfig, port: number) {
  const issuer = config.tokenService.issuer.replace(/\/$/, '');
  const idp = await startDevIdentityProvider({
    port,
    serviceClaim: config.deployment.serviceClaim,
    clients: [
      {
        clientId: DEV_FEDERATION_CLIENT.clientId,
        clientSecret: DEV_FEDERATION_CLIENT.secret,
        redirectUris: [`${issuer}/federation/callback`, `${bridgeBase(config)}/auth/oid4vp/idv/callback`],
      },
    ],
  });
  if (port === 0) {
    config.tokenService.upstream.issuer = idp.issuer;
    if (config.bridge.idv.provider.clientId === DEV_FEDERATION_CLIENT.clientId)
      config.bridge.idv.provider.issuer = idp.issuer;
  }
  return idp;
}

const bridgeBase = (config: ServerConfig) => config.bridge.publicBaseUrl.replace(/\/$/, '');
