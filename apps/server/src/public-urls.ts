import { ConfigError } from '@tessera/platform';
import type { ServerConfig } from './config.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Under NODE_ENV=production the URLs that browsers, wallets and relying parties reach must be https: an issuer
 * (OpenID Connect Discovery §3, RFC 9700 §2.6: TLS on every endpoint), the bridge's request and response URIs
 * (OID4VP; HAIP), the portal's Secure cookies. Plain http stays possible on loopback hosts only, for a deployment
 * tried out on one machine. A wrong URL stops the start with its key.
 */
export function assertPublicUrlsSecure(config: ServerConfig): void {
  if (config.profile !== 'production') return;
  const urls: [string, string][] = [
    ['tokenService.issuer', config.tokenService.issuer],
    ...Object.entries(config.tokenService.tenantIssuers).map(([tenant, issuer]): [string, string] => [
      `tokenService.tenantIssuers.${tenant}`,
      issuer,
    ]),
    ['bridge.publicBaseUrl', config.bridge.publicBaseUrl],
    ['portal.publicUrl', config.portal.publicUrl],
  ];
  for (const [key, value] of urls) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ConfigError(key, `${JSON.stringify(value)} is not an absolute URL`);
    }
    if (url.protocol === 'https:') continue;
    if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) continue;
    throw new ConfigError(
      key,
      `must be an https URL under NODE_ENV=production (got ${url.protocol}//${url.host}; http only on a loopback host)`,
    );
  }
}
