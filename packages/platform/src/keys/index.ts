export * from './key-manager.js';
export * from './sign-jwt.js';
export * from './master-key.js';
export * from './software-key-manager.js';
export * from './jws-encoding.js';
export * from './commands/index.js';
export * from './json-sealer.js';
