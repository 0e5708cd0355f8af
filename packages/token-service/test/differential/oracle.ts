import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type ClientMetadata, type Configuration } from 'oidc-provider';
import { RP_REDIRECT, RP_SECRET } from '../support/harness.js';
import { challengeOf } from '../support/codes.js';

/** The account every oracle login ends in. */
export const ORACLE_ACCOUNT = 'alice';

/**
 * The clients of testTokenServiceConfig() (support/harness.ts), as oidc-provider client metadata. oidc-provider
 * keeps one registered method per client, but it accepts client_secret_basic and client_secret_post alike for a
 * client registered with either (lib/shared/client_auth.js), which is what our server does (000 §5).
 */
const CLIENTS: ClientMetadata[] = [
  {
    client_id: 'demo-rp',
    client_secret: RP_SECRET,
    redirect_uris: [RP_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'openid profile email service_id offline_access',
  },
  {
    client_id: 'other-rp',
    client_secret: 'other-rp-secret',
    redirect_uris: ['http://127.0.0.1:8401/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
    scope: 'openid profile email service_id offline_access',
  },
  {
    client_id: 'public-app',
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
    scope: 'openid profile',
  },
];

/**
 * Follows the oracle's redirects (authorize → interaction → resume → client) by hand, carrying its cookies, and
 * answers the location at the client's redirect URI.
 */
async function followToClient(start: string, redirectUri: string): Promise<string> {
  const cookies = new Map<string, string>();
  let current = start;
  for (let hop = 0; hop < 10; hop++) {
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(current, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const set of res.headers.getSetCookie()) {
      const pair = set.split(';')[0]!;
      const i = pair.indexOf('=');
      cookies.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location)
      throw new Error(`the oracle's login stopped at ${res.status} ${current}`);
    current = new URL(location, current).href;
    if (current.startsWith(redirectUri)) return current;
  }
  throw new Error('the oracle redirected too often');
}

export interface Oracle {
  issuer: string;
  provider: Provider;
  /** Runs an authorization request through the auto-login interaction and answers the code. */
  mintCode(options?: {
    clientId?: string;
    redirectUri?: string;
    scope?: string;
  }): Promise<{ code: string; verifier: string; redirectUri: string }>;
  close(): Promise<void>;
}

/**
 * oidc-provider 9 (the OpenID-certified implementation) configured like our token service: the same clients,
 * the same endpoint paths, PKCE required (S256 only, its only method), introspection and revocation on,
 * refresh tokens rotated, redirect_uri always required (000 §4.4: oidc-provider would otherwise infer it for a
 * client with one registered URI), no DPoP and no pushed authorization requests. It serves as the differential
 * oracle of the error behaviour.
 *
 * Its login is a tiny interaction that signs in ORACLE_ACCOUNT and grants what was asked for in one step
 * (interactionDetails + a Grant + interactionResult, shared/notes/dependencies.md).
 */
export async function startOracle(): Promise<Oracle> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'oracle-1', alg: 'RS256', use: 'sig' };

  const configuration: Configuration = {
    clients: CLIENTS,
    jwks: { keys: [jwk] },
    routes: {
      authorization: '/authorize',
      token: '/token',
      introspection: '/introspect',
      revocation: '/revoke',
      userinfo: '/userinfo',
      jwks: '/.well-known/jwks.json',
    },
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    pkce: { required: () => true },
    scopes: ['openid', 'profile', 'email', 'service_id', 'offline_access'],
    claims: {
      openid: ['sub'],
      profile: ['name', 'given_name', 'family_name'],
      email: ['email', 'email_verified'],
      service_id: ['service_id'],
    },
    rotateRefreshToken: true,
    // Lifetimes of 000 §8 (the authorization code: our default, authorizationCodeTtlSeconds).
    ttl: {
      AccessToken: 3600,
      IdToken: 3600,
      RefreshToken: 86_400,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 3600,
      Grant: 86_400,
    },
    allowOmittingSingleRegisteredRedirectUri: false,
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
      // Neither is offered by our server (000 §5: DPoP off by default; no pushed authorization requests), and
      // with PAR on oidc-provider would read every request_uri as a pushed request.
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      // Our server's policies: a client sees and revokes only its own tokens; a foreign token introspects
      // inactive and its revocation is a silent no-op (RFC 7662 §2.2, RFC 7009 §2.1).
      introspection: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
    },
    async findAccount(_ctx, sub) {
      return { accountId: sub, claims: () => ({ sub, email: `${sub}@demo.example`, given_name: 'Alice' }) };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // The error page as JSON, so that its error code can be compared with ours (the decision is oidc-provider's,
    // only the rendering is ours).
    async renderError(ctx, out) {
      ctx.type = 'application/json';
      ctx.body = out;
    },
  };

  const provider = new Provider(issuer, configuration);
  provider.use(async (ctx, next) => {
    if (!ctx.path.startsWith('/interaction/')) return next();
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const clientId = String(details.params.client_id);
    const grant = new provider.Grant({ accountId: ORACLE_ACCOUNT, clientId });
    grant.addOIDCScope(String(details.params.scope ?? 'openid'));
    const grantId = await grant.save();
    const to = await provider.interactionResult(
      ctx.req,
      ctx.res,
      { login: { accountId: ORACLE_ACCOUNT }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
    ctx.status = 303;
    ctx.redirect(to);
  });
  server.on('request', provider.callback());

  return {
    issuer,
    provider,
    async mintCode(options = {}) {
      const verifier = randomBytes(48).toString('base64url');
      const redirectUri = options.redirectUri ?? RP_REDIRECT;
      const url = new URL(`${issuer}/authorize`);
      const params = {
        response_type: 'code',
        client_id: options.clientId ?? 'demo-rp',
        redirect_uri: redirectUri,
        scope: options.scope ?? 'openid profile email service_id offline_access',
        // oidc-provider drops offline_access unless consent is prompted for (OIDC Core §11).
        prompt: 'consent',
        state: 'st',
        nonce: 'n-1',
        code_challenge: challengeOf(verifier),
        code_challenge_method: 'S256',
      };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      const landed = await followToClient(url.href, redirectUri);
      const code = new URL(landed).searchParams.get('code');
      if (!code) throw new Error(`the oracle issued no code: ${landed}`);
      return { code, verifier, redirectUri };
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
