import type Provider from 'oidc-provider';

/** Koa types as oidc-provider's `use` sees them, without a direct dependency on koa. */
export type Middleware = Parameters<Provider['use']>[0];
export type KoaContext = Parameters<Middleware>[0];
export type Next = Parameters<Middleware>[1];

/**
 * Pages of this provider must not be cached, framed, or load anything from elsewhere. No `form-action`: browsers
 * apply it to the redirects after a submit, and the login ends in a redirect to the relying party.
 */
export function sendHtml(ctx: KoaContext, status: number, html: string): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('cache-control', 'no-store');
  ctx.set('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  ctx.body = html;
}

/** RFC 9110 15.4.4: 303 turns the form POST into a GET of the resume URL. */
export function seeOther(ctx: KoaContext, location: string): void {
  ctx.redirect(location);
  ctx.status = 303;
}
