/**
 * The relying party's authorization request as it reaches the portal (flows.md step 1) and as the portal hands it on
 * to GET /authorize (step 6). Only the parameters the token service understands travel (000 §4.4 table, plus prompt
 * and dpop_jkt); login_hint is the portal's to set.
 */
export const FORWARDED_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'dpop_jkt',
] as const;
export type ForwardedParam = (typeof FORWARDED_PARAMS)[number];
export type AuthorizationParams = Partial<Record<ForwardedParam, string>>;

/**
 * The parameters ride in a cookie (4096 bytes at most in browsers, RFC 6265 §6.1), so each is bounded; real state and
 * nonce values are 22 to 64 characters.
 */
export const MAX_PARAM_LENGTH = 512;

export interface ReadParams {
  params: AuthorizationParams;
  /** First parameter that was given more than once (RFC 6749 §3.1: parameters must not be repeated). */
  repeated: ForwardedParam | null;
  /** First parameter longer than MAX_PARAM_LENGTH. */
  tooLong: ForwardedParam | null;
}

export function readAuthorizationParams(query: URLSearchParams): ReadParams {
  const params: AuthorizationParams = {};
  let repeated: ForwardedParam | null = null;
  let tooLong: ForwardedParam | null = null;
  for (const name of FORWARDED_PARAMS) {
    const values = query.getAll(name);
    if (values.length === 0) continue;
    if (values.length > 1) repeated ??= name;
    params[name] = values[0]!;
    if (values[0]!.length > MAX_PARAM_LENGTH) tooLong ??= name;
  }
  // OAuth requires response_type; a relying party linking to the portal may leave it out, the portal means code.
  params.response_type ??= 'code';
  return { params, repeated, tooLong };
}

const withParams = (base: string, params: Record<string, string | null | undefined>) => {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) url.searchParams.set(k, v);
  return url.href;
};

/** flows.md step 6: the relying party's original parameters plus `login_hint=oid4vp:{sessionId}` (000 §4.4). */
export const authorizeUrl = (tokenServicePublicUrl: string, params: AuthorizationParams, sessionId: string) =>
  withParams(`${tokenServicePublicUrl}/authorize`, { ...params, login_hint: `oid4vp:${sessionId}` });

/** An error for the relying party (RFC 6749 §4.1.2.1) with `iss` (RFC 9207), as the token service itself would send it. */
export const errorRedirect = (
  redirectUri: string,
  error: { error: string; description: string; state: string | null; iss: string },
) =>
  withParams(redirectUri, {
    error: error.error,
    error_description: error.description,
    state: error.state,
    iss: error.iss,
  });

/** The portal's own sign-in URL for the same request: "start again". */
export const signinPath = (params: AuthorizationParams) =>
  `/signin?${new URLSearchParams(params as Record<string, string>).toString()}`;
