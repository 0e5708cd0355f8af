/**
 * Starts the development institutional provider for manual trials: `tsx packages/dev-idp/src/cli.ts`.
 * Settings come from the environment (see the package README); the defaults fit the development profile, where
 * the token service listens on 8080.
 */
import { startDevIdentityProvider } from './server.js';

const env = process.env;
const list = (value: string | undefined, fallback: string[]) =>
  value
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : fallback;

const clientId = env.DEV_IDP_CLIENT_ID ?? 'tessera-dev';
const redirectUris = list(env.DEV_IDP_REDIRECT_URIS, [
  'http://127.0.0.1:8080/federation/callback',
  'http://localhost:8080/federation/callback',
]);

const idp = await startDevIdentityProvider({
  port: Number(env.DEV_IDP_PORT ?? 8300),
  host: env.DEV_IDP_HOST ?? '127.0.0.1',
  ...(env.DEV_IDP_ISSUER ? { issuer: env.DEV_IDP_ISSUER } : {}),
  ...(env.DEV_IDP_SERVICE_CLAIM ? { serviceClaim: env.DEV_IDP_SERVICE_CLAIM } : {}),
  clients: [
    {
      clientId,
      clientSecret: env.DEV_IDP_CLIENT_SECRET ?? 'tessera-dev-secret',
      redirectUris,
      postLogoutRedirectUris: list(env.DEV_IDP_POST_LOGOUT_REDIRECT_URIS, []),
    },
  ],
});

// The secret and the demo passwords stay out of the log; the README and the login page show them.
process.stdout.write(
  [
    `Development identity provider at ${idp.issuer} (discovery: ${idp.issuer}/.well-known/openid-configuration)`,
    `Client ${clientId}, redirect URIs: ${redirectUris.join(', ')}`,
    `Demo users: ${idp.users.map((u) => u.username).join(', ')}`,
    '',
  ].join('\n'),
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void idp.close().then(() => process.exit(0));
  });
}
