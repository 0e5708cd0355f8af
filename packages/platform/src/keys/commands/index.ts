export * from './rotate-signing-key.js';
export * from './list-signing-keys.js';
