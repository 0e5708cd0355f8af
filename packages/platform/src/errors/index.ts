export * from './app-error.js';
export * from './envelopes.js';
