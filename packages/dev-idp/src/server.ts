import { randomBytes } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import Provider from 'oidc-provider';
import { BehaviourSwitch, tokenEndpointBehaviour } from './behaviours.js';
import { DEV_IDP_ACR, ROUTES, buildConfiguration } from './configuration.js';
import { IdTokenTamperer } from './id-token-tamper.js';
import { interactionRoutes } from './interactions.js';
import { generateSigningKey } from './keys.js';
import { UserDirectory, defaultDemoUsers } from './users.js';
import type { Behaviour, BehaviourOptions, DevIdentityProvider, DevIdentityProviderOptions } from './types.js';

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    // Keep-alive connections of fetch clients would otherwise hold close() open.
    server.closeAllConnections();
  });
}

/** A wildcard bind address is not somewhere a client can go: name the loopback address instead. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === 'localhost') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts the development institutional OpenID provider on a real port. The port is bound first, so that the
 * default issuer can name the port chosen for `port: 0`.
 */
export async function startDevIdentityProvider(options: DevIdentityProviderOptions): Promise<DevIdentityProvider> {
  const host = options.host ?? '127.0.0.1';
  const serviceClaim = options.serviceClaim ?? 'service_id';
  const users = options.users ?? defaultDemoUsers(serviceClaim);
  const directory = new UserDirectory(users);
  const signingKey = await generateSigningKey();

  let server = createServer();
  const port = await listen(server, options.port ?? 0, host);
  const url = `http://${urlHost(host)}:${port}`;
  const issuer = options.issuer ?? url;

  let provider: Provider;
  try {
    provider = new Provider(
      issuer,
      buildConfiguration({
        clients: options.clients,
        users: directory,
        serviceClaim,
        signingKey,
        cookieKeys: options.cookieKeys ?? [randomBytes(32).toString('base64url')],
        ttlSeconds: options.ttlSeconds ?? 600,
      }),
    );
  } catch (error) {
    // An invalid configuration (a client without a secret, say) must not leave the port bound.
    await stop(server);
    throw error;
  }
  const behaviour = new BehaviourSwitch();
  // Every port of the development setup answers GET /health (README), this provider's too.
  provider.use(async (ctx, next) => {
    if (ctx.method !== 'GET' || ctx.path !== '/health') return next();
    ctx.set('cache-control', 'no-store');
    ctx.body = { status: 'ok' };
  });
  provider.use(tokenEndpointBehaviour(behaviour, new IdTokenTamperer(signingKey), ROUTES.token));
  provider.use(interactionRoutes({ provider, users: directory, acr: DEV_IDP_ACR }));

  const handler: RequestListener = provider.callback();
  server.on('request', handler);
  let listening = true;

  async function goDown(): Promise<void> {
    if (!listening) return;
    listening = false;
    behaviour.releaseWaits();
    await stop(server);
  }

  async function goUp(): Promise<void> {
    if (listening) return;
    server = createServer(handler);
    await listen(server, port, host);
    listening = true;
  }

  return {
    issuer,
    url,
    port,
    provider,
    users,
    acr: DEV_IDP_ACR,
    behaviour: () => behaviour.current,
    async setBehaviour(next: Behaviour, behaviourOptions: BehaviourOptions = {}) {
      if (behaviourOptions.delaySeconds !== undefined) behaviour.delaySeconds = behaviourOptions.delaySeconds;
      behaviour.current = next;
      if (next === 'down') await goDown();
      else await goUp();
    },
    async restart() {
      if (behaviour.current === 'down') behaviour.current = 'normal';
      await goUp();
    },
    async close() {
      await goDown();
    },
  };
}
