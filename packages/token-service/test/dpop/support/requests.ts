import { basic } from '../../support/codes.js';
import { RP_SECRET } from '../../support/harness.js';
import type { MintedCode } from './dpop-harness.js';

export const demoAuth = basic('demo-rp', RP_SECRET);

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function toJson(res: Response): Promise<JsonResponse> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A token request with optional DPoP header(s) (a list is sent as repeated headers) and client authentication. */
export async function tokenRequest(
  url: string,
  form: Record<string, string>,
  options: { dpop?: string | string[]; authorization?: string } = {},
): Promise<JsonResponse> {
  const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded' });
  for (const proof of typeof options.dpop === 'string' ? [options.dpop] : (options.dpop ?? []))
    headers.append('dpop', proof);
  if (options.authorization) headers.set('authorization', options.authorization);
  return toJson(await fetch(url, { method: 'POST', headers, body: new URLSearchParams(form).toString() }));
}

/** The form of an authorization_code token request; a public client names itself with client_id. */
export function codeForm(code: MintedCode, confidential = false): Record<string, string> {
  const form: Record<string, string> = {
    grant_type: 'authorization_code',
    code: code.code,
    code_verifier: code.verifier,
    redirect_uri: code.redirectUri,
  };
  if (!confidential) form.client_id = code.clientId;
  return form;
}

/** A userinfo request with any Authorization and DPoP headers. */
export async function userinfoRequest(
  url: string,
  options: { authorization?: string; dpop?: string; method?: 'GET' | 'POST'; form?: Record<string, string> } = {},
): Promise<JsonResponse> {
  const headers = new Headers();
  if (options.authorization) headers.set('authorization', options.authorization);
  if (options.dpop) headers.set('dpop', options.dpop);
  const method = options.method ?? 'GET';
  if (options.form) headers.set('content-type', 'application/x-www-form-urlencoded');
  return toJson(
    await fetch(url, {
      method,
      headers,
      ...(options.form ? { body: new URLSearchParams(options.form).toString() } : {}),
    }),
  );
}
