import { writeFile } from 'node:fs/promises';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { calculateJwkThumbprint, type JWK } from 'jose';
import {
  createRoleApp,
  loadConfig,
  platformMigrations,
  signJwt,
  withSymmetricKeysMigration,
  type Principal,
} from '@tessera/platform';
import { createPostgresTestDatabase } from '@tessera/platform/testing';
import { Value } from 'typebox/value';
import {
  createIssuanceSessions,
  IssuanceConfigSchema,
  issuanceMigrations,
  type IssuanceConfig,
} from '@tessera/issuance';
import {
  createStatusEntryAllocator,
  StatusListsConfigSchema,
  statusListsMigrations,
  type StatusListsConfig,
} from '@tessera/status-lists';
import { createCredentialGrants, signingKeyAlias, tokenServiceMigrations } from '@tessera/token-service';
import { identityMigrations } from '@tessera/identity';
import { announceListening, closeOnSignal } from '../../../../bench/lib/server-child.js';
import { benchDataDir, startBenchPlatform } from '../../../../bench/lib/bench-platform.js';
import { Oid4vciConfigSchema, oid4vciMigrations, registerOid4vciRoutes } from '../../src/index.js';

/**
 * The issuance role app with the OpenID4VCI issuer for the oid4vci-credential scenario, on PostgreSQL: SESSIONS
 * sessions of the demo tenant with the five claims of an SD-JWT VC, and for each a DPoP-bound access token signed
 * with the tenant's token key (as the token service mints them, contract B). The tokens, the DPoP key and the holder
 * key (private JWKs: bench only) go to BENCH_DATA_DIR/credential.json for the load generator.
 */
const dataDir = benchDataDir();
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 200);
const TENANT = 'demo';
const TOKEN_ISSUER = 'http://token.bench.invalid';
export const CONFIGURATION = 'bench.pid';

const database = await createPostgresTestDatabase();
const { platform } = await startBenchPlatform({
  profile: 'test',
  database: { url: database.url, maxPoolSize: 10 },
  migrations: [
    ...withSymmetricKeysMigration(platformMigrations),
    ...identityMigrations,
    ...tokenServiceMigrations,
    ...statusListsMigrations,
    ...issuanceMigrations,
    ...oid4vciMigrations,
  ],
  overrides: { tenancy: { seedDemoTenant: true } },
});
const claims = ['given_name', 'family_name', 'birthdate', 'nationality', 'address.locality'];
const config = loadConfig(Oid4vciConfigSchema, {
  env: {},
  overrides: {
    tenants: { [TENANT]: { credentialIssuer: 'http://127.0.0.1:1' } },
    credentialConfigurations: {
      [CONFIGURATION]: { format: 'dc+sd-jwt', vct: 'urn:bench:pid', claims: claims.map((path) => ({ path })) },
    },
  },
});
const issuance = Value.Default(IssuanceConfigSchema, {}) as IssuanceConfig;
const statusLists = Value.Default(StatusListsConfigSchema, {}) as StatusListsConfig;
const sessions = createIssuanceSessions(platform, issuance);
const app = await createRoleApp(platform, { role: 'issuance', title: 'bench', family: 'design' });
await registerOid4vciRoutes(app, platform, {
  config,
  grants: createCredentialGrants(platform),
  sessions,
  statusEntries: createStatusEntryAllocator(platform, statusLists),
  authorizationServer: {
    issuerFor: () => TOKEN_ISSUER,
    jwks: (tenantId) => platform.keys.publishedJwks(signingKeyAlias(tenantId)),
  },
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
config.tenants[TENANT]!.credentialIssuer = url;

const jwkOf = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as JWK;
const dpopKey = jwkOf();
const holderKey = jwkOf();
const { d: _d, ...dpopPublic } = dpopKey;
const jkt = await calculateJwkThumbprint(dpopPublic);
await platform.keys.ensure(signingKeyAlias(TENANT), 'RS256');
const admin: Principal = {
  id: 'bench-admin',
  kind: 'user',
  tenantId: TENANT,
  roles: ['tenant-admin'],
  scopes: [],
  clientId: null,
  issuer: null,
};
const tokens: string[] = [];
const now = Math.floor(Date.now() / 1000);
for (let i = 0; i < SESSIONS; i++) {
  const session = await sessions.startSession(TENANT, admin, {
    pipeline_configuration: {
      pipelineId: 'bench-inline',
      claimsBindings: [
        {
          credentialConfigurationId: CONFIGURATION,
          deferrable: false,
          claims: claims.map((path) => ({ attributePath: path, claimPath: path, required: true })),
        },
      ],
    },
    ttl_seconds: 86_400,
    initial_attributes: claims.map((path) => ({ path, value: `value of ${path}` })),
  });
  tokens.push(
    await signJwt(
      platform.keys,
      signingKeyAlias(TENANT),
      {
        iss: TOKEN_ISSUER,
        aud: url,
        sub: `issuance:${session.correlation_id}`,
        tenant_id: TENANT,
        issuance_session: session.correlation_id,
        authorization_details: [{ type: 'openid_credential', credential_configuration_id: CONFIGURATION }],
        cnf: { jkt },
        jti: randomUUID(),
        iat: now,
        exp: now + 86_400,
      },
      { typ: 'at+jwt' },
    ),
  );
}
await writeFile(
  join(dataDir, 'credential.json'),
  JSON.stringify({ tokens, dpopKey, holderKey, configuration: CONFIGURATION }),
);

closeOnSignal(async () => {
  await app.close();
  await sessions.settled();
  await platform.close();
  await database.drop();
});
await announceListening(url);
