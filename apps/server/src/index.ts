export * from './config.js';
export * from './start.js';
export * from './migrations.js';
export { ROLES } from './roles/index.js';
