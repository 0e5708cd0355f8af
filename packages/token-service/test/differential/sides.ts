import { RP_SECRET, type TokenServiceHarness } from '../support/harness.js';
import { basic, mintCode } from '../support/codes.js';
import type { Oracle } from './oracle.js';
import { observeJson, type Observation } from './compare.js';

export interface MintedCode {
  code: string;
  verifier: string;
  redirectUri: string;
}

/** One of the two servers under comparison, with what a case needs to build its request there. */
export interface Side {
  name: 'ours' | 'oidc-provider';
  issuer: string;
  /** An unused authorization code of demo-rp (all scopes unless told), with its verifier. */
  mintCode(options?: { scope?: string }): Promise<MintedCode>;
}

export const oursSide = (h: TokenServiceHarness): Side => ({
  name: 'ours',
  issuer: h.issuer,
  mintCode: (options = {}) => mintCode(h, options.scope ? { scope: options.scope } : {}),
});

export const oracleSide = (o: Oracle): Side => ({
  name: 'oidc-provider',
  issuer: o.issuer,
  mintCode: (options = {}) => o.mintCode(options.scope ? { scope: options.scope } : {}),
});

export const DEMO = basic('demo-rp', RP_SECRET);
export const OTHER = basic('other-rp', 'other-rp-secret');
export const FORM = 'application/x-www-form-urlencoded';

/** A request as sent on the wire; `form` keeps repeated names. */
export interface WireRequest {
  method?: string;
  headers?: Record<string, string>;
  form?: Array<[string, string]>;
  /** A raw body with its own content type in `headers` (JSON, empty). */
  body?: string;
  query?: Array<[string, string]>;
}

export async function send(
  side: Side,
  path: string,
  req: WireRequest,
): Promise<Observation & { body: Record<string, unknown> }> {
  const url = new URL(`${side.issuer}${path}`);
  for (const [k, v] of req.query ?? []) url.searchParams.append(k, v);
  const headers: Record<string, string> = { ...(req.form ? { 'content-type': FORM } : {}), ...req.headers };
  const body = req.form ? new URLSearchParams(req.form).toString() : req.body;
  const res = await fetch(url, {
    method: req.method ?? 'POST',
    headers,
    ...(body !== undefined ? { body } : {}),
    redirect: 'manual',
  });
  return observeJson(res);
}

/** The code exchange of demo-rp with client_secret_basic. */
export const exchangeForm = (c: MintedCode): Array<[string, string]> => [
  ['grant_type', 'authorization_code'],
  ['code', c.code],
  ['code_verifier', c.verifier],
  ['redirect_uri', c.redirectUri],
];

/** An access token and a refresh token of demo-rp at this side (all scopes unless told). */
export async function tokensAt(side: Side, scope?: string): Promise<{ access_token: string; refresh_token: string }> {
  const res = await send(side, '/token', {
    form: exchangeForm(await side.mintCode(scope ? { scope } : {})),
    headers: { authorization: DEMO },
  });
  if (res.status !== 200 || typeof res.body.access_token !== 'string' || typeof res.body.refresh_token !== 'string') {
    throw new Error(`${side.name} issued no tokens: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return { access_token: res.body.access_token, refresh_token: res.body.refresh_token };
}
