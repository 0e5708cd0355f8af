export * from './constant-time-equal.js';
