/**
 * True for http(s) URLs whose host is a loopback address. Plain http is accepted by the wallet only there
 * (OpenID4VP 1.0 requires https for request_uri and response_uri; loopback is the development exception).
 */
export function isLoopbackUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

export function isPlainHttpUrl(value: string): boolean {
  return value.startsWith('http://');
}
