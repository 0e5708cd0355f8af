import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Provider from 'oidc-provider';
import { createHash } from 'node:crypto';
import { announceListening, closeOnSignal } from '../lib/server-child.js';
import {
  BENCH_CLIENT,
  BENCH_REDIRECT,
  BENCH_SECRET,
  BENCH_VERIFIER,
  type TokenBenchCredentials,
} from '../lib/token-bench.js';

/**
 * The certified reference, run beside our token service in the same benchmark: oidc-provider 9 in memory (its
 * default adapter, no database), RS256, PKCE required, refresh tokens rotated, the same client and scopes. Its
 * client secret is compared in plain text (its default). Codes and refresh tokens are minted through its own
 * models before the measurement. Access tokens are JWTs (resource indicators), as ours.
 */
const dataDir = process.env.BENCH_DATA_DIR!;
const mode = process.env.BENCH_TOKEN_MODE === 'refresh' ? 'refresh' : 'exchange';
const count = Number(process.env.BENCH_TOKEN_CREDENTIALS ?? 60_000);

const { generateKeyPair, exportJWK } = await import('jose');
const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), kid: 'bench', alg: 'RS256', use: 'sig' };

/**
 * An unbounded in-memory adapter: the quick-start one is an LRU of about a thousand entries, which would evict the
 * credentials minted for the run before they are used. Still memory only, as in the measurement quoted in issue 3.
 */
const store = new Map<string, Record<string, unknown>>();
class MapAdapter {
  constructor(private readonly name: string) {}
  private key = (id: string) => `${this.name}:${id}`;
  async upsert(id: string, payload: Record<string, unknown>) {
    store.set(this.key(id), payload);
  }
  async find(id: string) {
    return store.get(this.key(id));
  }
  async findByUid(uid: string) {
    for (const [k, v] of store) if (k.startsWith(`${this.name}:`) && v.uid === uid) return v;
    return undefined;
  }
  async findByUserCode() {
    return undefined;
  }
  async consume(id: string) {
    const v = store.get(this.key(id));
    if (v) v.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string) {
    store.delete(this.key(id));
  }
  async revokeByGrantId(grantId: string) {
    for (const [k, v] of store) if (v.grantId === grantId) store.delete(k);
  }
}

const provider = new Provider('http://127.0.0.1', {
  adapter: MapAdapter as never,
  clients: [
    {
      client_id: BENCH_CLIENT,
      client_secret: BENCH_SECRET,
      redirect_uris: [BENCH_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  jwks: { keys: [jwk] },
  pkce: { required: () => true },
  rotateRefreshToken: true,
  // Credentials are minted before the measurement: they must outlive the setup and the run.
  ttl: { AuthorizationCode: 3600, RefreshToken: 86_400, Grant: 86_400, AccessToken: 3600, IdToken: 3600 },
  scopes: ['openid', 'profile', 'email', 'offline_access'],
  claims: { openid: ['sub'], email: ['email'], profile: ['given_name', 'family_name'] },
  findAccount: async (_ctx, sub) => ({
    accountId: sub,
    claims: async () => ({ sub, email: 'alice@demo.example', given_name: 'Alice', family_name: 'Doe' }),
  }),
  routes: { token: '/token' },
  issueRefreshToken: async () => true,
  // JWT access tokens, as ours (RFC 9068): an exchange then signs two JWTs at both servers.
  features: {
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'urn:tessera:bench',
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: 'openid profile email offline_access',
        audience: BENCH_CLIENT,
        accessTokenFormat: 'jwt',
      }),
    },
  },
});
const server = provider.listen(0, '127.0.0.1');
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
const { port } = server.address() as { port: number };

const client = await provider.Client.find(BENCH_CLIENT);
const challenge = createHash('sha256').update(BENCH_VERIFIER).digest('base64url');
const values: string[] = [];
for (let i = 0; i < count; i++) {
  const accountId = `bench-user-${randomBytes(4).toString('hex')}`;
  const grant = new provider.Grant({ accountId, clientId: BENCH_CLIENT });
  grant.addOIDCScope('openid profile email offline_access');
  grant.addResourceScope('urn:tessera:bench', 'openid profile email offline_access');
  const grantId = await grant.save();
  const session = { accountId, authTime: Math.floor(Date.now() / 1000) };
  if (mode === 'exchange') {
    const code = new provider.AuthorizationCode({
      accountId,
      grantId,
      client: client!,
      scope: 'openid profile email offline_access',
      redirectUri: BENCH_REDIRECT,
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
      authTime: session.authTime,
      nonce: 'n-0',
      resource: 'urn:tessera:bench',
      gty: 'authorization_code',
    });
    values.push(await code.save());
  } else {
    const rt = new provider.RefreshToken({
      accountId,
      grantId,
      client: client!,
      scope: 'openid profile email offline_access',
      authTime: session.authTime,
      rotations: 0,
      iat: Math.floor(Date.now() / 1000),
      resource: 'urn:tessera:bench',
      gty: 'authorization_code',
    });
    values.push(await rt.save());
  }
}
const credentials: TokenBenchCredentials = mode === 'exchange' ? { codes: values } : { refreshTokens: values };
writeFileSync(join(dataDir, 'credentials.json'), JSON.stringify(credentials));
closeOnSignal(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
await announceListening(`http://127.0.0.1:${port}`);
