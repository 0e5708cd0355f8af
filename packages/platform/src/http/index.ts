export * from './types.js';
export * from './create-app.js';
export * from './error-handler.js';
export * from './operational-routes.js';
export * from './strict-body.js';
export * from './authentication-events.js';
export * from './escape-html.js';
