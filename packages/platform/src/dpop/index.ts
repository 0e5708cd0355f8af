export * from './dpop-replay-stores.js';
