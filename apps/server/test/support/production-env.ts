import { randomBytes } from 'node:crypto';

/**
 * The environment of a production process for the tests: NODE_ENV=production on a PostgreSQL database, a fresh
 * master key, and one tenant `acme` as the default. `extra` adds the role and its settings.
 */
export function productionEnv(databaseUrl: string, extra: Record<string, string>): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    MASTER_KEY: randomBytes(32).toString('base64'),
    DEFAULT_TENANT: 'acme',
    TESSERA_TENANCY__TENANTS: JSON.stringify([{ id: 'acme', displayName: 'Acme', hostNames: ['acme.example.test'] }]),
    ...extra,
  };
}
