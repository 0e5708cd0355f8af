/**
 * The status-list issuer (001 §2.4, §4.3): creates, allocates, updates and publishes status lists.
 * The composition root adds `statusLists: StatusListsConfigSchema` to its configuration, `statusListsMigrations` to its
 * migrations, and calls `registerStatusListsRoutes` on the `status-lists` role app. The issuance context calls
 * `createStatusEntryAllocator(platform, config).allocateStatusEntry(tenant, listConfig)`.
 */
export { StatusListsConfigSchema, type StatusListsConfig } from './config.js';
export { registerStatusListsRoutes, type StatusListsDeps } from './register.js';
export { statusListsMigrations } from './storage/migrations.js';
export { createStatusEntryAllocator, type StatusEntryAllocator, type StatusListRef } from './issuance-hook.js';
export type { AllocatedEntry } from './domain/entry-shapes.js';
