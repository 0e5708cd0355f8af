import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type ClientMetadata, type KoaContextWithOIDC } from 'oidc-provider';

export const USER_ID = 'user-1';
export const PUBLIC_CLIENT = 'public-client';
export const BASIC_CLIENT = 'basic-client';
export const POST_CLIENT = 'post-client';
export const RESOURCE_SERVER = 'resource-server';
export const CLIENT_SECRET = randomBytes(24).toString('base64url');

/** A real oidc-provider (v9) on 127.0.0.1, with an interaction that logs the test user in and consents. */
export interface TestAuthorizationServer {
  issuer: string;
  redirectUri: string;
  provider: Provider;
  /** Grant types for which the token endpoint demands a DPoP nonce (RFC 9449 §8). */
  nonceRequiredFor: Set<string>;
  /** Set to make the next interactions deny the request (error=access_denied). */
  deny: boolean;
  /** `use_dpop_nonce` and successful answers of the token endpoint, counted. */
  counts: { useDpopNonce: number; grantSuccess: number };
  close(): Promise<void>;
}

async function interact(server: TestAuthorizationServer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { provider } = server;
  const details = await provider.interactionDetails(req, res);
  if (server.deny) {
    await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'the user said no' });
    return;
  }
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: USER_ID } }, { mergeWithLastSubmission: false });
    return;
  }
  const accountId = details.session?.accountId ?? USER_ID;
  const clientId = String(details.params.client_id);
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId, clientId });
  if (!grant) throw new Error('grant not found');
  grant.addOIDCScope(String(details.params.scope));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

export async function startAuthorizationServer(): Promise<TestAuthorizationServer> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const redirectUri = 'http://127.0.0.1/callback';
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'id-token-key', use: 'sig', alg: 'RS256' };
  const nonceRequiredFor = new Set<string>();

  const common: Pick<ClientMetadata, 'grant_types' | 'response_types'> = {
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: PUBLIC_CLIENT,
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        redirect_uris: [redirectUri],
        ...common,
      },
      {
        client_id: BASIC_CLIENT,
        client_secret: CLIENT_SECRET,
        token_endpoint_auth_method: 'client_secret_basic',
        application_type: 'native',
        redirect_uris: [redirectUri],
        ...common,
      },
      {
        client_id: POST_CLIENT,
        client_secret: CLIENT_SECRET,
        token_endpoint_auth_method: 'client_secret_post',
        application_type: 'native',
        redirect_uris: [redirectUri],
        ...common,
      },
      {
        client_id: RESOURCE_SERVER,
        client_secret: CLIENT_SECRET,
        token_endpoint_auth_method: 'client_secret_basic',
        redirect_uris: [],
        grant_types: [],
        response_types: [],
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      // Only the resource-server client introspects here, and it may see every token.
      introspection: { enabled: true, allowedPolicy: async (_ctx, client) => client.clientId === RESOURCE_SERVER },
      dPoP: {
        enabled: true,
        nonceSecret: randomBytes(32),
        requireNonce: (ctx: KoaContextWithOIDC) => nonceRequiredFor.has(String(ctx.oidc.params?.grant_type)),
      },
    },
    enabledJWA: { dPoPSigningAlgValues: ['ES256', 'ES384'] },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    issueRefreshToken: async () => true,
    rotateRefreshToken: true,
    ttl: { AccessToken: 600, IdToken: 600, RefreshToken: 3600, Interaction: 600, Session: 3600, Grant: 3600 },
  });

  const server: TestAuthorizationServer = {
    issuer,
    redirectUri,
    provider,
    nonceRequiredFor,
    deny: false,
    counts: { useDpopNonce: 0, grantSuccess: 0 },
    close: () =>
      new Promise((resolve, reject) => {
        http.close((error) => (error ? reject(error) : resolve()));
        http.closeAllConnections();
      }),
  };
  provider.on('grant.error', (_ctx: unknown, error: { error?: string }) => {
    if (error.error === 'use_dpop_nonce') server.counts.useDpopNonce++;
  });
  provider.on('grant.success', () => {
    server.counts.grantSuccess++;
  });

  const callback = provider.callback();
  http.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      interact(server, req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    void callback(req, res);
  });
  return server;
}

/**
 * Plays the browser: follows the authorization server's redirects with fetch (manual redirects, carrying its
 * cookies) until it lands on the redirect URI, and returns that URL.
 */
export async function followAuthorization(authorizationUrl: string, redirectUri: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  for (let hop = 0; hop < 12; hop++) {
    if (url.startsWith(redirectUri)) return url;
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie === '' ? {} : { cookie } });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0] ?? '';
      const eq = pair.indexOf('=');
      if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
    }
    const location = response.headers.get('location');
    if (location === null)
      throw new Error(`no redirect at hop ${hop}: HTTP ${response.status} ${await response.text()}`);
    await response.body?.cancel();
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects');
}

/** RFC 7662 introspection as a resource server would call it. */
export async function introspect(introspectionEndpoint: string, token: string): Promise<Record<string, unknown>> {
  const response = await fetch(introspectionEndpoint, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${RESOURCE_SERVER}:${CLIENT_SECRET}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token }),
  });
  if (response.status !== 200) throw new Error(`introspection answered ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}
