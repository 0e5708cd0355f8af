import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isForbiddenAddress, isLoopbackName } from '../../net/address-policy.js';

/** Why a destination URL is refused (security checklist "Fetching URLs"; the rules of net/safe-fetch.ts). */
export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DestinationRefused';
  }
}

/**
 * The scheme of a syslog-over-TLS destination, `syslog-tls://host[:port]` (RFC 5425; there is no registered URI
 * scheme for syslog, so the project names one). The port defaults to 6514, the one RFC 5425 §4.1 assigns.
 */
export const SYSLOG_TLS_SCHEME = 'syslog-tls:';
export const SYSLOG_TLS_PORT = 6514;

export const isSyslogTlsUrl = (text: string): boolean => text.toLowerCase().startsWith(`${SYSLOG_TLS_SCHEME}//`);

export interface UrlPolicy {
  allowPrivateOrigins: readonly string[];
  allowHttp: boolean;
}

/**
 * Checks a destination URL before any connection: https only (http for allow-listed origins or when allowHttp),
 * no credentials, and an IP literal or `localhost` naming a non-public address refused. Answers whether the
 * origin is allow-listed (then the address rules are skipped, as in safe-fetch).
 */
export function checkDestinationUrl(text: string, policy: UrlPolicy): { url: URL; allowed: boolean } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DestinationRefused('the URL is malformed');
  }
  if (url.username || url.password) throw new DestinationRefused('credentials in the URL are refused');
  // A non-special scheme has the origin "null": a syslog destination is allow-listed by `syslog-tls://host:port`.
  const origin = url.protocol === SYSLOG_TLS_SCHEME ? `${SYSLOG_TLS_SCHEME}//${url.host}` : url.origin;
  const allowed = policy.allowPrivateOrigins.includes(origin);
  if (url.protocol === SYSLOG_TLS_SCHEME) {
    // TLS is the scheme itself; what a syslog destination cannot have is a path, a query or a fragment.
    if (!url.hostname) throw new DestinationRefused('a syslog destination names its host');
    if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash)
      throw new DestinationRefused('a syslog destination has no path, query or fragment');
  } else if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (allowed || policy.allowHttp)))
    throw new DestinationRefused('only https URLs are accepted');
  if (allowed) return { url, allowed };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) ? isForbiddenAddress(host) : isLoopbackName(host))
    throw new DestinationRefused('the address is not public');
  return { url, allowed };
}

/** At creation: the URL's rules, and a host name must resolve to public addresses only. */
export async function assertPublicDestination(text: string, policy: UrlPolicy): Promise<void> {
  const { url, allowed } = checkDestinationUrl(text, policy);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allowed || isIP(host)) return;
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new DestinationRefused('the host name does not resolve');
  }
  if (addresses.length === 0 || addresses.some((a) => isForbiddenAddress(a.address)))
    throw new DestinationRefused('the host resolves to an address that is not public');
}
