export * from './tenant-registry.js';
export * from './resolve-tenant.js';
