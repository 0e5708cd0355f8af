import * as client from 'openid-client';

/** What failed in an institutional login, named by step (safe to show; it carries no value of the login). */
export type UpstreamFailure = 'provider_error' | 'token_exchange_failed' | 'id_token_invalid' | 'provider_unreachable';

export interface UpstreamErrorClass {
  failure: UpstreamFailure;
  /** The provider's OAuth `error` code when it sent one (RFC 6749 §4.1.2.1, §5.2). */
  providerError?: string | undefined;
}

/**
 * Checks of the ID token (OpenID Connect Core §3.1.3.7) by their stable codes: oauth4webapi's claim and timestamp
 * checks and key selection, and jose's, should a verifier below report through it.
 */
const ID_TOKEN_CODES = new Set([
  'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
  'OAUTH_KEY_SELECTION_FAILED',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JWT_EXPIRED',
  'ERR_JWKS_NO_MATCHING_KEY',
]);

/** The provider could not be reached or did not answer in time: Node's and undici's codes, openid-client's own. */
const UNREACHABLE_CODES = new Set([
  'OAUTH_TIMEOUT',
  'OAUTH_ABORT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** Answers of a gateway or an overloaded server: the provider is not available, rather than refusing the code. */
const UNAVAILABLE_STATUSES = new Set([502, 503, 504]);

interface Link {
  name?: unknown;
  code?: unknown;
  cause?: unknown;
}

/** The error and its causes, outermost first (openid-client wraps the check that failed, undici the socket error). */
function chainOf(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== null && typeof current === 'object' && chain.length < 6) {
    chain.push(current);
    current = (current as Link).cause;
  }
  return chain;
}

/**
 * An `OAUTH_INVALID_RESPONSE` of oauth4webapi names what it found wrong in its details (the error's `cause`): the
 * token response's `body` or the callback's `parameters` for the response itself; a JWT (its text, `header`,
 * `claims`, or the `signature` that did not verify) for the ID token.
 */
function isInvalidIdToken(link: Link): boolean {
  if (link.code !== 'OAUTH_INVALID_RESPONSE') return false;
  const details = link.cause;
  if (typeof details === 'string') return true;
  if (details === null || typeof details !== 'object') return false;
  return 'signature' in details || 'claims' in details || 'header' in details;
}

const statusOf = (link: unknown): number | undefined =>
  link instanceof Response
    ? link.status
    : typeof (link as { status?: unknown }).status === 'number'
      ? (link as { status: number }).status
      : undefined;

/**
 * Classifies a failure of openid-client (v6) during the code exchange by what the libraries guarantee: the error's
 * class (AuthorizationResponseError, ResponseBodyError, WWWAuthenticateChallengeError), its `code`, the HTTP status
 * of the provider's answer and the OAuth `error` it sent, never by the wording of a message. One function for every
 * institutional login (the token service's federated login, the bridge's identity verification).
 */
export function classifyUpstreamError(error: unknown): UpstreamErrorClass {
  const chain = chainOf(error);
  for (const link of chain) {
    // An error answer in the authorization response (the person's Cancel included).
    if (link instanceof client.AuthorizationResponseError)
      return { failure: 'provider_error', providerError: link.error };
    // The token endpoint answered with an OAuth error body (RFC 6749 §5.2), e.g. invalid_grant.
    if (link instanceof client.ResponseBodyError)
      return UNAVAILABLE_STATUSES.has(link.status)
        ? { failure: 'provider_unreachable', providerError: link.error }
        : { failure: 'token_exchange_failed', providerError: link.error };
    // 401 with a WWW-Authenticate challenge: the client's credentials were refused (RFC 6749 §5.2 invalid_client).
    if (link instanceof client.WWWAuthenticateChallengeError) {
      const challenge = link.cause[0];
      return { failure: 'token_exchange_failed', providerError: challenge?.parameters.error };
    }
  }
  const links = chain as Link[];
  // An ID token check anywhere in the chain decides before the generic wrappers.
  if (links.some((l) => (typeof l.code === 'string' && ID_TOKEN_CODES.has(l.code)) || isInvalidIdToken(l)))
    return { failure: 'id_token_invalid' };
  if (
    links.some(
      (l) =>
        (typeof l.code === 'string' && UNREACHABLE_CODES.has(l.code)) ||
        l.name === 'TimeoutError' ||
        l.name === 'AbortError',
    )
  )
    return { failure: 'provider_unreachable' };
  // An answer that is not an OAuth response at all (OAUTH_RESPONSE_IS_NOT_CONFORM carries the Response).
  const status = chain.map(statusOf).find((s) => s !== undefined);
  if (status !== undefined && UNAVAILABLE_STATUSES.has(status)) return { failure: 'provider_unreachable' };
  return { failure: 'token_exchange_failed' };
}
