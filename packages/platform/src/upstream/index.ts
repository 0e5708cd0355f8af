export * from './upstream-oidc-client.js';
