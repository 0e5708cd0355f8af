import { startDemoRelyingParty } from './server.js';

/**
 * `npx tsx packages/demo-rp/src/cli.ts`: the demo relying party with the development defaults of a local deployment
 * (token service on 8080, portal on 3000). DEMO_RP_* variables override them.
 */
const env = process.env;
const rp = await startDemoRelyingParty({
  port: Number(env.DEMO_RP_PORT ?? 8400),
  host: env.DEMO_RP_HOST ?? '127.0.0.1',
  tokenServiceUrl: env.DEMO_RP_TOKEN_SERVICE_URL ?? 'http://127.0.0.1:8080',
  portalUrl: env.DEMO_RP_PORTAL_URL ?? 'http://127.0.0.1:3000',
  ...(env.DEMO_RP_CLIENT_ID ? { clientId: env.DEMO_RP_CLIENT_ID } : {}),
  ...(env.DEMO_RP_CLIENT_SECRET ? { clientSecret: env.DEMO_RP_CLIENT_SECRET } : {}),
  ...(env.DEMO_RP_REDIRECT_URI ? { redirectUri: env.DEMO_RP_REDIRECT_URI } : {}),
});
process.stderr.write(`Demo relying party (development only) at ${rp.url}, redirect URI ${rp.redirectUri}\n`);
const stop = () => void rp.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
