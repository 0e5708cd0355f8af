export * from './upstream-oidc-client.js';
export { classifyUpstreamError, type UpstreamErrorClass } from './classify-upstream-error.js';
