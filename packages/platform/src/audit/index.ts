export * from './audit-log.js';
export * from './audit-store.js';
export * from './audit-pending.js';
export * from './recover-staged-job.js';
export * from './canonical.js';
export * from './exports.js';
export * from './audit-routes.js';
export * from './verify-cli.js';
