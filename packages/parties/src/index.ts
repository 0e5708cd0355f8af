/**
 * The party management API (001 §2.5, §4.4): persons, organizations, units, services, groups, relationships,
 * addresses and identity-to-application bindings. The composition root adds `parties: PartiesConfigSchema` to its
 * configuration, `partiesMigrations` to its migrations, and calls `registerPartiesRoutes` on the `parties` role app.
 */
export { PartiesConfigSchema, type PartiesConfig } from './config.js';
export { registerPartiesRoutes, type PartiesDeps } from './register.js';
export { partiesMigrations } from './storage/migrations.js';
export type { IdentityDirectory } from './services.js';
