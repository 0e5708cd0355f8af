export * from './logger.js';
export * from './metrics.js';
export * from './trace-context.js';
export * from './clock.js';
export * from './access-log.js';
export * from './http-metrics.js';
export * from './registered-metrics.js';
