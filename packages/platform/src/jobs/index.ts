export * from './scheduler.js';
export * from './database-scheduler.js';
