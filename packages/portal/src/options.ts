import { systemClock, type Clock, type SymmetricKeyManager } from '@tessera/platform';

/** What the composition root hands the portal (see README "Wiring"). */
export interface PortalDeps {
  /** Token service as the portal backend reaches it (internal port 8080): the check endpoint and POST /token. */
  tokenServiceUrl: string;
  /** Token service as browsers reach it: the portal sends the browser to its GET /authorize (flows.md step 6). */
  tokenServicePublicUrl: string;
  /** `iss` of error redirects to a relying party (RFC 9207); default tokenServicePublicUrl. */
  tokenServiceIssuer?: string;
  /** Bridge as the portal backend reaches it (service calls, 000 §4.1, §4.2). */
  bridgeUrl: string;
  /** Bridge as browsers reach it. The browser meets the bridge only through the IDV callback redirect. */
  bridgePublicUrl?: string;
  /** The portal's own public base URL (000 §4.2 portal_url): decides the Secure cookie flag and the Origin check. */
  portalPublicUrl: string;
  /** The portal's own client at the token service (client_credentials grant). */
  serviceCredentials: { clientId: string; clientSecret: string; scope?: string };
  /**
   * Signs the login-transaction cookie (HS256 under `transactionKeyAlias`). The platform key manager: every replica
   * reads the same key, and a rotation keeps old cookies verifiable by their version.
   */
  keys: Pick<SymmetricKeyManager, 'ensureSymmetric' | 'hmac' | 'hmacWithVersion'>;
  clock?: Clock;
  /** DCQL query of the wallet login (000 §2.2). */
  queryId?: string;
  /** 000 §8: status polling every 2 seconds... */
  statusPollSeconds?: number;
  /** ...for at most 5 minutes. */
  maxWaitSeconds?: number;
  /** 000 §8: IDV status polling, 30 attempts (at statusPollSeconds). */
  idvPollAttempts?: number;
  /** Bound of each call to the bridge or the token service. */
  fetchTimeoutSeconds?: number;
  /** How long a login transaction (and its cookie) lives: the wallet wait plus an identity verification. */
  transactionTtlSeconds?: number;
  transactionKeyAlias?: string;
  /**
   * Display names of relying parties by client id (their `client_name`), shown on the sign-in page; a name the token
   * service's check answers wins. Default none: the client id is shown.
   */
  clientDisplayNames?: Record<string, string>;
  /** The fetch used for service calls (default: the global one). */
  fetch?: typeof fetch;
}

export interface PortalOptions {
  tokenServiceUrl: string;
  tokenServicePublicUrl: string;
  tokenServiceIssuer: string;
  bridgeUrl: string;
  bridgePublicUrl: string | null;
  portalPublicUrl: string;
  secureCookies: boolean;
  portalOrigin: string;
  serviceCredentials: { clientId: string; clientSecret: string; scope: string };
  keys: PortalDeps['keys'];
  clock: Clock;
  queryId: string;
  statusPollSeconds: number;
  maxWaitSeconds: number;
  idvPollAttempts: number;
  fetchTimeoutSeconds: number;
  transactionTtlSeconds: number;
  transactionKeyAlias: string;
  clientDisplayNames: Readonly<Record<string, string>>;
  fetch: typeof fetch;
}

/** Scopes of the portal's service token: the bridge session API and the token service check (flows.md step 2). */
export const DEFAULT_SERVICE_SCOPE = 'bridge:sessions token-service:authorization-check';

const trim = (url: string) => url.replace(/\/+$/, '');

function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`portal: ${name} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`portal: ${name} must be http or https`);
  return trim(value);
}

function positive(name: string, value: number, min: number): number {
  if (!Number.isFinite(value) || value < min) throw new Error(`portal: ${name} must be at least ${min}`);
  return value;
}

/** Applies the defaults of 000 §8 and checks the URLs once, at registration. */
export function resolvePortalOptions(deps: PortalDeps): PortalOptions {
  const portalPublicUrl = httpUrl('portalPublicUrl', deps.portalPublicUrl);
  const tokenServicePublicUrl = httpUrl('tokenServicePublicUrl', deps.tokenServicePublicUrl);
  if (!deps.serviceCredentials?.clientId || !deps.serviceCredentials.clientSecret)
    throw new Error('portal: serviceCredentials need a clientId and a clientSecret');
  return {
    tokenServiceUrl: httpUrl('tokenServiceUrl', deps.tokenServiceUrl),
    tokenServicePublicUrl,
    tokenServiceIssuer: deps.tokenServiceIssuer ? trim(deps.tokenServiceIssuer) : tokenServicePublicUrl,
    bridgeUrl: httpUrl('bridgeUrl', deps.bridgeUrl),
    bridgePublicUrl: deps.bridgePublicUrl ? httpUrl('bridgePublicUrl', deps.bridgePublicUrl) : null,
    portalPublicUrl,
    secureCookies: portalPublicUrl.startsWith('https:'),
    portalOrigin: new URL(portalPublicUrl).origin,
    serviceCredentials: {
      clientId: deps.serviceCredentials.clientId,
      clientSecret: deps.serviceCredentials.clientSecret,
      scope: deps.serviceCredentials.scope ?? DEFAULT_SERVICE_SCOPE,
    },
    keys: deps.keys,
    clock: deps.clock ?? systemClock,
    queryId: deps.queryId ?? 'wallet-login',
    statusPollSeconds: positive('statusPollSeconds', deps.statusPollSeconds ?? 2, 0.1),
    maxWaitSeconds: positive('maxWaitSeconds', deps.maxWaitSeconds ?? 300, 1),
    idvPollAttempts: positive('idvPollAttempts', deps.idvPollAttempts ?? 30, 1),
    fetchTimeoutSeconds: positive('fetchTimeoutSeconds', deps.fetchTimeoutSeconds ?? 5, 0.1),
    transactionTtlSeconds: positive('transactionTtlSeconds', deps.transactionTtlSeconds ?? 1800, 60),
    transactionKeyAlias: deps.transactionKeyAlias ?? 'portal-login-transaction',
    clientDisplayNames: Object.freeze({ ...deps.clientDisplayNames }),
    fetch: deps.fetch ?? fetch,
  };
}
