import { WalletError } from './wallet-error.js';

export interface Openid4vpLink {
  clientId: string;
  requestUri: string | undefined;
  /** `get` or `post` (OpenID4VP 1.0 §5.10); undefined when absent. */
  requestUriMethod: string | undefined;
  /** A request object passed by value (RFC 9101 §5.1). */
  request: string | undefined;
}

/**
 * Reads the parameters of an authorization request link such as `openid4vp://?client_id=...&request_uri=...`
 * (OpenID4VP 1.0 §5; any scheme is accepted, HAIP uses `haip-vp://`). Only by-reference and by-value signed
 * requests are used by this wallet, so one of `request_uri` and `request` is required.
 */
export function parseOpenid4vpLink(link: string): Openid4vpLink {
  let url: URL;
  try {
    url = new URL(link.trim());
  } catch (error) {
    throw new WalletError('invalid_link', 'the link is not a URL', { cause: error });
  }
  const params = url.searchParams;
  const clientId = params.get('client_id');
  const requestUri = params.get('request_uri') ?? undefined;
  const request = params.get('request') ?? undefined;
  if (!requestUri && !request) {
    throw new WalletError(
      'invalid_link',
      'the link carries neither request_uri nor request: only signed requests are supported',
    );
  }
  if (requestUri && request)
    throw new WalletError('invalid_link', 'request and request_uri must not both be present (RFC 9101 §5)');
  if (!clientId)
    throw new WalletError('invalid_link', 'the link carries no client_id (RFC 9101 §5: required beside request_uri)');
  return { clientId, requestUri, requestUriMethod: params.get('request_uri_method') ?? undefined, request };
}
