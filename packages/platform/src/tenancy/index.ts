export * from './tenant-registry.js';
export * from './resolve-tenant.js';
export * from './trusted-tenant-override.js';
