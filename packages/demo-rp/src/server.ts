import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwtPayload, DemoOidcClient, describeError, type LoginTransaction } from './oidc.js';
import { errorPage, homePage, signedInPage, STYLE } from './pages.js';
import { SignedCookie } from './signed-cookie.js';

export interface DemoRelyingPartyOptions {
  /** Default 8400. 0 picks a free port (tests); the redirect URI then follows the port unless given. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The token service's issuer URL, as browsers reach it. */
  tokenServiceUrl: string;
  /** The portal's public URL: the wallet button sends the browser to its /signin. */
  portalUrl: string;
  /** Default `demo-rp`. */
  clientId?: string;
  /** Default `demo-rp-secret`. */
  clientSecret?: string;
  /** Default `http://<host>:<port>/callback` (http://127.0.0.1:8400/callback with the defaults). */
  redirectUri?: string;
  /** Default `openid profile email service_id offline_access`. */
  scope?: string;
  /** Signs the transaction cookie; a random key per start by default (a restart forgets pending sign-ins). */
  cookieSecret?: string;
}

export interface DemoRelyingParty {
  url: string;
  redirectUri: string;
  close(): Promise<void>;
}

/** A login may take the wallet wait plus an identity verification. */
const TRANSACTION_SECONDS = 1800;

// No form-action: the buttons' posts are answered with redirects to the portal or the token service, and from there
// to an institution whose origin the demo cannot know; browsers apply form-action to every hop.
const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/**
 * The development demo relying party (issue 8 item 2): two ways in (the wallet through the portal, the institution
 * through the token service's federated login) and a callback that shows what the tokens say. Refuses to run under
 * NODE_ENV=production.
 */
export async function startDemoRelyingParty(options: DemoRelyingPartyOptions): Promise<DemoRelyingParty> {
  if (process.env.NODE_ENV === 'production')
    throw new Error('The demo relying party is for development only; it does not start under NODE_ENV=production.');
  const host = options.host ?? '127.0.0.1';
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8400, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const redirectUri = options.redirectUri ?? `${url}/callback`;
  const oidc = new DemoOidcClient({
    issuer: options.tokenServiceUrl.replace(/\/+$/, ''),
    clientId: options.clientId ?? 'demo-rp',
    clientSecret: options.clientSecret ?? 'demo-rp-secret',
    redirectUri,
    scope: options.scope ?? 'openid profile email service_id offline_access',
  });
  const secret = options.cookieSecret ? Buffer.from(options.cookieSecret) : randomBytes(32);
  const cookie = new SignedCookie<LoginTransaction>('demo-rp-login', secret, redirectUri.startsWith('https:'));
  const portalSignin = new URL('/signin', options.portalUrl);

  const send = (res: ServerResponse, status: number, body: string, extra: Record<string, string> = {}) => {
    res.writeHead(status, { ...HEADERS, ...extra });
    res.end(body);
  };
  const redirect = (res: ServerResponse, location: string, setCookie: string) => {
    res.writeHead(303, { location, 'set-cookie': setCookie, 'cache-control': 'no-store' });
    res.end();
  };

  async function login(res: ServerResponse, via: LoginTransaction['via']) {
    const { url: authorize, tx } = await oidc.authorizationRequest(via);
    // The wallet button goes to the portal with the very parameters /authorize would get (flows.md step 1).
    const target = via === 'wallet' ? new URL(`${portalSignin.href}${authorize.search}`) : authorize;
    redirect(res, target.href, cookie.serialize(tx, TRANSACTION_SECONDS));
  }

  async function callback(req: IncomingMessage, res: ServerResponse, current: URL) {
    const tx = cookie.read(req.headers.cookie);
    if (!tx)
      return send(
        res,
        400,
        errorPage('no_login_in_progress', 'This browser has no sign-in in progress here. Start again.'),
        { 'set-cookie': cookie.clear() },
      );
    try {
      const result = await oidc.exchange(current, tx);
      const page = signedInPage({
        via: tx.via,
        idTokenClaims: result.idTokenClaims,
        accessTokenClaims: decodeJwtPayload(result.accessToken),
        scope: result.scope,
      });
      return send(res, 200, page, { 'set-cookie': cookie.clear() });
    } catch (error) {
      const { code, description } = describeError(error);
      return send(res, 400, errorPage(code, description), { 'set-cookie': cookie.clear() });
    }
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const current = new URL(req.url ?? '/', redirectUri);
    const route = `${req.method} ${current.pathname}`;
    const handle = async () => {
      switch (route) {
        case 'GET /':
          return send(res, 200, homePage());
        case 'GET /health':
          // Every port of the development setup answers GET /health (README), this one too.
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
          return res.end(JSON.stringify({ status: 'ok' }));
        case 'GET /style.css':
          res.writeHead(200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=300' });
          return res.end(STYLE);
        case 'POST /login/wallet':
          return login(res, 'wallet');
        case 'POST /login/institution':
          return login(res, 'institution');
        case `GET ${new URL(redirectUri).pathname}`:
          return callback(req, res, current);
        case 'GET /signout':
          res.writeHead(303, { location: '/', 'set-cookie': cookie.clear(), 'cache-control': 'no-store' });
          return res.end();
        default:
          return send(res, 404, errorPage('not_found', 'No such page.'));
      }
    };
    // Drain any request body (the buttons post an empty form) before answering.
    req.resume();
    handle().catch((error: unknown) => {
      const { code, description } = describeError(error);
      if (!res.headersSent)
        send(
          res,
          502,
          errorPage(code, `The token service could not be reached or answered unexpectedly. ${description}`),
        );
      else res.end();
    });
  });

  return {
    url,
    redirectUri,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
