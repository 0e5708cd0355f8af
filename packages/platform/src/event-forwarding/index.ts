export * from './domain/stream.js';
export * from './domain/event-types.js';
export { SET_CONTENT_TYPE, SET_TYPE, subjectOf, type SubjectIdentifier } from './domain/security-event-token.js';
export { deliveryIdOf } from './domain/delivery-id.js';
export * from './event-forwarding-service.js';
export * from './http/ssf-routes.js';
export * from './http/forwarder-routes.js';
export * from './commands/ssf-stream-commands.js';
export * from './commands/forwarder-commands.js';
