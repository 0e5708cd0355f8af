export * from './principal.js';
export * from './policy.js';
export * from './jwt-authenticator.js';
