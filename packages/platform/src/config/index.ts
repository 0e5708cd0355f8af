export * from './platform-schema.js';
export * from './load-config.js';
export * from './durations.js';
