import { OAuthClientError } from './oauth-client-error.js';

/** Loopback names (RFC 8252 §8.3; RFC 6761 §6.3 for localhost). WHATWG URL keeps IPv6 hosts in brackets. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * Every request goes over https (RFC 6749 §3.1, §3.2; RFC 8414 §3), except plain http to a loopback host when
 * the caller has said so explicitly. Returns the parsed URL and whether it is an allowed insecure one.
 */
export function checkRequestUrl(
  value: string | URL,
  what: string,
  allowInsecureRequests: boolean | undefined,
): { url: URL; insecure: boolean } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthClientError('insecure_request', `${what} is not an absolute URL`);
  }
  if (url.protocol === 'https:') return { url, insecure: false };
  if (url.protocol === 'http:' && allowInsecureRequests === true && isLoopbackHost(url.hostname)) {
    return { url, insecure: true };
  }
  throw new OAuthClientError(
    'insecure_request',
    url.protocol === 'http:'
      ? `${what} uses http; allowed only to a loopback host with allowInsecureRequests`
      : `${what} must be an https URL`,
  );
}
