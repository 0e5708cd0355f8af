export * from './database.js';
export * from './errors.js';
export * from './migrate.js';
export * from './open-database.js';
export { PostgresDatabase } from './postgres.js';
export { PgliteDatabase } from './pglite.js';
export { RUNTIME_ROLE } from './runtime-role.js';
export * from './tenant-batcher.js';
export * from './reachability.js';
