export * from './databases.js';
export * from './test-issuer.js';
export * from './test-platform.js';
export * from './tcp-proxy.js';
export * from './cookie-jar.js';
export * from './rate-limit-window.js';
export * from './run-process.js';
