/**
 * A token service as a process of its own, for the tests that kill it (SIGKILL) after an acknowledged write and read
 * the write back from a fresh process. Configured by the environment: DATABASE_URL, MASTER_KEY, PORT and, for the
 * federated login, IDP_ISSUER. Prints `READY <url>` on standard output once it listens and is prepared.
 */
import { createPlatform, createRoleApp, loadConfig, PlatformConfigSchema, UpstreamOidcClient } from '@tessera/platform';
import { PostgresIdentityStore } from '@tessera/identity';
import { createTokenService, prepareTokenService, registerTokenServiceRoutes } from '../../src/index.js';
import { migrations, testTokenServiceConfig } from './harness.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const port = Number(env('PORT'));
const issuer = `http://127.0.0.1:${port}`;
const platform = await createPlatform(
  loadConfig(PlatformConfigSchema, {
    env: {},
    overrides: {
      profile: 'test',
      database: { url: env('DATABASE_URL') },
      keys: { masterKey: env('MASTER_KEY') },
      tenancy: { seedDemoTenant: true },
      rateLimit: { enabled: false },
      logging: { level: 'warn' },
    },
  }),
  { migrations },
);
const ctx = createTokenService(
  platform,
  { ...testTokenServiceConfig(), issuer },
  {
    identities: new PostgresIdentityStore({ keys: platform.keys, clock: platform.clock, serviceClaim: 'service_id' }),
    wallet: null,
    upstream: process.env.IDP_ISSUER
      ? new UpstreamOidcClient({
          issuer: process.env.IDP_ISSUER,
          clientId: 'tessera-federation',
          clientSecret: 'federation-secret',
          scopes: ['openid', 'email', 'service_id'],
          timeoutSeconds: 3,
        })
      : null,
  },
);
const app = await createRoleApp(platform, { role: 'token-internal', title: 'Token service', family: 'oauth' });
await registerTokenServiceRoutes(app, ctx);
await app.listen({ host: '127.0.0.1', port });
await prepareTokenService(ctx);
process.stdout.write(`READY ${issuer}\n`);
