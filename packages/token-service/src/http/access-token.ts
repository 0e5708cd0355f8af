/** An access token as a request presents it: the scheme says whether a DPoP proof must come with it. */
export interface PresentedAccessToken {
  scheme: 'Bearer' | 'DPoP';
  token: string;
}

/**
 * The access token of a resource request: `Authorization: Bearer` (RFC 6750 §2.1), `Authorization: DPoP` when
 * DPoP is on (RFC 9449 §7.1), or an `access_token` form parameter (RFC 6750 §2.2). Null when there is none.
 */
export function presentedAccessToken(
  authorization: string | undefined,
  body: unknown,
  dpopEnabled: boolean,
): PresentedAccessToken | null {
  if (authorization && /^bearer /i.test(authorization)) {
    const token = authorization.slice(7).trim();
    return token ? { scheme: 'Bearer', token } : null;
  }
  if (dpopEnabled && authorization && /^dpop /i.test(authorization)) {
    const token = authorization.slice(5).trim();
    return token ? { scheme: 'DPoP', token } : null;
  }
  const fromBody = (body as Record<string, unknown> | undefined)?.access_token;
  return typeof fromBody === 'string' && fromBody ? { scheme: 'Bearer', token: fromBody } : null;
}
