import type { ClientMetadata, Configuration } from 'oidc-provider';
import { escapeHtml, logoutPage, messagePage, layout } from './pages.js';
import type { SigningKey } from './keys.js';
import type { DevClient } from './types.js';
import type { UserDirectory } from './users.js';

export const DEV_IDP_ACR = 'urn:tessera:dev-idp:password';

/** Readable endpoint paths, the ones an institutional provider typically shows. */
export const ROUTES = {
  authorization: '/authorize',
  token: '/token',
  userinfo: '/userinfo',
  jwks: '/jwks',
  end_session: '/logout',
} as const;

export interface ConfigurationInput {
  clients: readonly DevClient[];
  users: UserDirectory;
  serviceClaim: string;
  signingKey: SigningKey;
  cookieKeys: string[];
  ttlSeconds: number;
}

function clientMetadata(client: DevClient): ClientMetadata {
  const method = client.tokenEndpointAuthMethod ?? 'client_secret_basic';
  if (method !== 'none' && !client.clientSecret)
    throw new Error(`Client ${client.clientId} needs a clientSecret for ${method}`);
  return {
    client_id: client.clientId,
    ...(method === 'none' ? {} : { client_secret: client.clientSecret }),
    redirect_uris: client.redirectUris,
    post_logout_redirect_uris: client.postLogoutRedirectUris ?? [],
    grant_types: client.grantTypes ?? ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: method,
    id_token_signed_response_alg: 'RS256',
    // oidc-provider puts `acr` into the ID token only when acr values were asked for; the client's default
    // (OpenID Connect Dynamic Client Registration 2, default_acr_values) asks on every request.
    default_acr_values: [DEV_IDP_ACR],
  };
}

export function buildConfiguration(input: ConfigurationInput): Configuration {
  const { serviceClaim, users, ttlSeconds } = input;
  return {
    clients: input.clients.map(clientMetadata),
    jwks: { keys: [input.signingKey.jwk] },
    routes: ROUTES,
    responseTypes: ['code'],
    // What DevClient can configure; discovery then advertises no method a client here could not use.
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    // PKCE for every client, confidential ones included (RFC 9700 2.1.1); oidc-provider 9 offers S256 only.
    pkce: { required: () => true },
    scopes: ['openid', 'profile', 'email', serviceClaim],
    // Scope to claims (OpenID Connect Core 5.4); the service claim has a scope of its own name, and the
    // eduPerson principal name travels with the profile.
    claims: {
      openid: ['sub'],
      profile: ['name', 'given_name', 'family_name', 'eduperson_principal_name'],
      email: ['email', 'email_verified'],
      [serviceClaim]: [serviceClaim],
    },
    // Relying parties of the institutional provider read these claims from the ID token itself, as they do from
    // the real upstream; the conforming default would keep scope claims for /userinfo only.
    conformIdTokenClaims: false,
    acrValues: [DEV_IDP_ACR],
    async findAccount(_ctx, sub) {
      const user = users.findBySub(sub);
      if (!user) return undefined;
      // oidc-provider filters these by the granted scopes and claims before releasing them.
      return { accountId: sub, claims: () => ({ sub, ...user.claims }) };
    },
    cookies: { keys: input.cookieKeys },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        async logoutSource(ctx, form) {
          ctx.type = 'html';
          ctx.body = logoutPage(form);
        },
        async postLogoutSuccessSource(ctx) {
          ctx.type = 'html';
          ctx.body = messagePage('Signed out', 'You are signed out of the development identity provider.');
        },
      },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // Relying parties call the token and userinfo endpoints from their servers, never from browser scripts.
    clientBasedCORS: () => false,
    async renderError(ctx, out) {
      ctx.type = 'html';
      const rows = Object.entries(out)
        .map(([key, value]) => `<dt>${escapeHtml(key)}</dt><dd>${escapeHtml(value)}</dd>`)
        .join('');
      ctx.body = layout('Sign-in error', `<h1>Sign-in error</h1>\n<dl role="alert">${rows}</dl>`);
    },
    ttl: {
      AccessToken: ttlSeconds,
      IdToken: ttlSeconds,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
  };
}
