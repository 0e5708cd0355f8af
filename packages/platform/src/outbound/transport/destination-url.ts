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
  const allowed = policy.allowPrivateOrigins.includes(url.origin);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (allowed || policy.allowHttp)))
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
