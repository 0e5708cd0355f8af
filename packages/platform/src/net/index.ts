export * from './address-policy.js';
export * from './safe-fetch.js';
