export * from './constant-time-equal.js';
export * from './secure-random.js';
