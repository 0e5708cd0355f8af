import type { Oid4vciConfig } from '../config.js';
import { noBinding } from './errors.js';

/**
 * The tenant_public_endpoint binding of a tenant (001 §5) and the URLs that follow from its credential issuer
 * identifier (OpenID4VCI 1.0 §12.2.1, §12.2.2): the endpoints sit under the identifier, the metadata at the
 * path-inserted well-known URL.
 */
export interface TenantEndpoint {
  tenantId: string;
  credentialIssuer: string;
  /** The identifier's path without a trailing slash ('' for a bare host): the prefix of every route. */
  path: string;
  credentialEndpoint: string;
  nonceEndpoint: string;
  deferredCredentialEndpoint: string;
  notificationEndpoint: string;
  offerUri(offerId: string): string;
}

export const ROUTES = {
  metadata: '/.well-known/openid-credential-issuer',
  jwtVcIssuer: '/.well-known/jwt-vc-issuer',
  credential: '/oid4vci/credential',
  nonce: '/oid4vci/nonce',
  deferred: '/oid4vci/deferredCredential',
  notification: '/oid4vci/notification',
  offers: '/oid4vci/credential-offers',
  webappOffers: '/oid4vci/webapp/credential-offers',
} as const;

export function tenantEndpoint(config: Oid4vciConfig, tenantId: string): TenantEndpoint {
  const binding = config.tenants[tenantId];
  if (!binding) throw noBinding();
  const credentialIssuer = binding.credentialIssuer.replace(/\/+$/, '');
  const path = new URL(credentialIssuer).pathname.replace(/\/+$/, '');
  return {
    tenantId,
    credentialIssuer,
    path,
    credentialEndpoint: `${credentialIssuer}${ROUTES.credential}`,
    nonceEndpoint: `${credentialIssuer}${ROUTES.nonce}`,
    deferredCredentialEndpoint: `${credentialIssuer}${ROUTES.deferred}`,
    notificationEndpoint: `${credentialIssuer}${ROUTES.notification}`,
    offerUri: (offerId) => `${credentialIssuer}${ROUTES.offers}/${offerId}`,
  };
}

/** The distinct path prefixes of the bound issuers ('' included when some issuer is a bare host). */
export const boundPrefixes = (config: Oid4vciConfig): string[] => [
  ...new Set(
    Object.values(config.tenants).map((b) =>
      new URL(b.credentialIssuer.replace(/\/+$/, '')).pathname.replace(/\/+$/, ''),
    ),
  ),
];

/**
 * A request reached the routes under `prefix`: the resolved tenant's issuer must live there, else the request is
 * refused (a tenant is never served under another tenant's identifier).
 */
export function endpointAt(config: Oid4vciConfig, tenantId: string, prefix: string): TenantEndpoint {
  const endpoint = tenantEndpoint(config, tenantId);
  if (endpoint.path !== prefix) throw noBinding();
  return endpoint;
}
