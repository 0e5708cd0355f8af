/**
 * The status-list issuer (001 §2.4, §4.3): creates, allocates, updates and publishes status lists.
 * The composition root adds `statusLists: StatusListsConfigSchema` to its configuration, `statusListsMigrations` to its
 * migrations, and calls `registerStatusListsRoutes` on the `status-lists` role app.
 */
import type { Migration } from '@tessera/platform';

export { StatusListsConfigSchema, type StatusListsConfig } from './config.js';
export { registerStatusListsRoutes, type StatusListsDeps } from './register.js';

export const statusListsMigrations: Migration[] = [];
