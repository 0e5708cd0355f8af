import { randomBytes } from 'node:crypto';
import {
  isOpenid4vpAuthorizationRequestDcApi,
  resolveOpenid4vpAuthorizationRequest,
  type Openid4vpAuthorizationRequest,
  type ResolvedOpenid4vpAuthorizationRequest,
} from '@openid4vc/openid4vp';
import { DcqlQuery } from 'dcql';
import { decodeJwt } from 'jose';
import { isLoopbackUrl, isPlainHttpUrl } from '../common/is-loopback-url.js';
import { withLoopbackHttp } from './allow-loopback-http.js';
import type { VerificationNotes, WalletCallbacks } from './create-wallet-callbacks.js';
import { fetchRequestObject } from './fetch-request-object.js';
import { parseOpenid4vpLink } from './parse-openid4vp-link.js';
import { WALLET_METADATA } from './wallet-metadata.js';
import { WalletError } from './wallet-error.js';

export type SupportedClientIdPrefix = 'x509_san_dns' | 'x509_hash' | 'decentralized_identifier';
const SUPPORTED_PREFIXES: readonly string[] = ['x509_san_dns', 'x509_hash', 'decentralized_identifier'];

/** A verified authorization request, reduced to what the wallet needs to answer it. */
export interface ResolvedRequest {
  /** The full client identifier including its prefix; the audience of every presentation (OpenID4VP 1.0 §5.9.1). */
  clientId: string;
  clientIdPrefix: SupportedClientIdPrefix;
  nonce: string;
  state: string | undefined;
  responseUri: string;
  responseMode: 'direct_post' | 'direct_post.jwt';
  dcqlQuery: DcqlQuery;
  payload: Openid4vpAuthorizationRequest;
  /** Plain http on loopback is in use, so the libraries' insecure-URL switch must be on while answering. */
  loopbackHttp: boolean;
}

/**
 * https, or http on a loopback host: anything else is refused before any request is made. True when the URL is the
 * loopback http exception.
 */
function requiresLoopbackHttp(name: string, value: string): boolean {
  if (value.startsWith('https://')) return false;
  if (isPlainHttpUrl(value) && isLoopbackUrl(value)) return true;
  throw new WalletError('insecure_url', `${name} must be https (plain http is accepted on loopback only)`);
}

/** The response_uri of a not yet verified request object, only to decide the URL policy. */
function peekResponseUri(requestObject: string): string {
  let responseUri: unknown;
  try {
    responseUri = decodeJwt(requestObject)['response_uri'];
  } catch (error) {
    throw new WalletError('invalid_request_object', 'the request object is not a JWT', { cause: error });
  }
  if (typeof responseUri !== 'string') throw new WalletError('unsupported_request', 'the request has no response_uri');
  return responseUri;
}

/**
 * Parses the link, fetches and verifies the request object (RFC 9101; OpenID4VP 1.0 §5) and checks what the
 * library leaves to the wallet: a signed request with a supported client identifier prefix, `typ`
 * `oauth-authz-req+jwt` (OpenID4VP 1.0 §5.10 / RFC 9101 §10.8), response mode direct_post or direct_post.jwt with a
 * response_uri (§8.2), and a valid DCQL query (§6).
 */
export async function resolveRequest(input: {
  link: string;
  callbacks: WalletCallbacks;
  notes: VerificationNotes;
  fetch: typeof fetch;
}): Promise<ResolvedRequest> {
  const link = parseOpenid4vpLink(input.link);
  const requestUriOnLoopback = link.requestUri ? requiresLoopbackHttp('request_uri', link.requestUri) : false;
  const post =
    link.requestUriMethod === 'post'
      ? { walletMetadata: WALLET_METADATA, walletNonce: randomBytes(16).toString('base64url') }
      : undefined;
  const request =
    link.request ??
    (await fetchRequestObject({ requestUri: link.requestUri!, fetch: input.fetch, ...(post ? { post } : {}) }));

  // The URL policy is applied before verification too, because the library refuses plain http unless switched.
  const responseUriOnLoopback = requiresLoopbackHttp('response_uri', peekResponseUri(request));
  let resolved: ResolvedOpenid4vpAuthorizationRequest;
  try {
    resolved = await withLoopbackHttp(requestUriOnLoopback || responseUriOnLoopback, () =>
      resolveOpenid4vpAuthorizationRequest({
        // The request object was fetched above (GET, no redirects, content type checked), so it is handed over by value.
        authorizationRequestPayload: { client_id: link.clientId, request },
        // With request_uri_method=post the request object must echo our wallet_nonce (OpenID4VP 1.0 §5.10.1).
        ...(post ? { wallet: { expectedNonce: post.walletNonce } } : {}),
        callbacks: input.callbacks,
      }),
    );
  } catch (error) {
    const described = (error as { errorResponse?: { error_description?: string } }).errorResponse?.error_description;
    const detail =
      input.notes.problems.length > 0 ? input.notes.problems.join('; ') : (described ?? (error as Error).message);
    const code = input.notes.problems.some((problem) => problem.includes('not trusted'))
      ? 'untrusted_verifier'
      : 'invalid_request_object';
    throw new WalletError(code, `the request object was not accepted: ${detail}`, { cause: error });
  }

  if (!resolved.jar) throw new WalletError('invalid_request_object', 'the request is not a signed request object');
  if (!SUPPORTED_PREFIXES.includes(resolved.client.prefix)) {
    throw new WalletError(
      'unsupported_request',
      `client identifier prefix '${resolved.client.prefix}' is not supported`,
    );
  }
  if (resolved.jar.jwt.header.typ !== 'oauth-authz-req+jwt') {
    throw new WalletError(
      'invalid_request_object',
      `the request object typ is '${String(resolved.jar.jwt.header.typ)}', expected oauth-authz-req+jwt`,
    );
  }
  const payload = resolved.authorizationRequestPayload;
  if (isOpenid4vpAuthorizationRequestDcApi(payload))
    throw new WalletError('unsupported_request', 'Digital Credentials API requests are not supported');
  if (payload.response_type !== 'vp_token')
    throw new WalletError('unsupported_request', 'only response_type vp_token is supported');
  const responseMode = payload.response_mode;
  if (responseMode !== 'direct_post' && responseMode !== 'direct_post.jwt') {
    throw new WalletError('unsupported_request', `response_mode '${String(responseMode)}' is not supported`);
  }
  const responseUri = payload.response_uri;
  if (!responseUri) throw new WalletError('unsupported_request', 'the request has no response_uri');
  if (!payload.dcql_query) throw new WalletError('unsupported_request', 'the request has no dcql_query');
  let dcqlQuery: DcqlQuery;
  try {
    dcqlQuery = DcqlQuery.parse(payload.dcql_query as DcqlQuery.Input);
    DcqlQuery.validate(dcqlQuery);
  } catch (error) {
    throw new WalletError('unsupported_request', `the DCQL query is invalid: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return {
    clientId: resolved.client.effective,
    clientIdPrefix: resolved.client.prefix as SupportedClientIdPrefix,
    nonce: payload.nonce,
    state: payload.state,
    responseUri,
    responseMode,
    dcqlQuery,
    payload,
    loopbackHttp: requestUriOnLoopback || responseUriOnLoopback,
  };
}
