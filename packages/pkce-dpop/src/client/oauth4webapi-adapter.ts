import * as oauth from 'oauth4webapi';
import type { AuthorizationServerMetadata, ClientAuthentication, HttpRequestOptions } from './client-types.js';

/**
 * The conversions between this package's public types and oauth4webapi's, kept in one place so that the rest of
 * the client code reads in our terms.
 */
export function toAuthorizationServer(metadata: AuthorizationServerMetadata): oauth.AuthorizationServer {
  return metadata as oauth.AuthorizationServer;
}

export function toClientAuth(authentication: ClientAuthentication): oauth.ClientAuth {
  if (authentication === null) return oauth.None();
  return authentication.method === 'client_secret_basic'
    ? oauth.ClientSecretBasic(authentication.clientSecret)
    : oauth.ClientSecretPost(authentication.clientSecret);
}

/**
 * Request options for oauth4webapi: the insecure-request switch only for a URL that checkRequestUrl allowed, our
 * fetch, and a hook that sees every response (to pick up `DPoP-Nonce`, RFC 9449 §8).
 */
export interface TransportOptions {
  [oauth.customFetch]: (url: string, init: oauth.CustomFetchOptions<string, unknown>) => Promise<Response>;
  [oauth.allowInsecureRequests]?: boolean;
  signal?: AbortSignal;
}

export function toRequestOptions(
  http: HttpRequestOptions,
  insecure: boolean,
  onResponse?: (response: Response) => void,
): TransportOptions {
  const fetchImpl = http.fetch ?? fetch;
  const options: TransportOptions = {
    [oauth.customFetch]: async (url, init) => {
      const response = await fetchImpl(url, init as RequestInit);
      onResponse?.(response);
      return response;
    },
  };
  if (insecure) options[oauth.allowInsecureRequests] = true;
  if (http.signal) options.signal = http.signal;
  return options;
}
