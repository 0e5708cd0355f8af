export * from './command.js';
export * from './command-bus.js';
