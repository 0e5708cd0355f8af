export * from './signature.js';
export * from './domain/delivery.js';
export * from './domain/options.js';
export * from './domain/retry.js';
export { enqueue, insertOwnedDeliveries, type OwnedDelivery } from './storage/outbox-store.js';
export * from './outbound-service.js';
export * from './http/webhook-routes.js';
export { DestinationRefused } from './transport/destination-url.js';
export { CREATE_DESTINATION } from './commands/create-destination.js';
export { LIST_DESTINATIONS } from './commands/list-destinations.js';
export { DELETE_DESTINATION } from './commands/delete-destination.js';
export { LIST_DELIVERIES } from './commands/list-deliveries.js';
/** The breaker's SQL and the signed POST, for contexts that call their own destinations synchronously. */
export * as circuitBreaker from './storage/breaker-store.js';
export { postWebhook, type PostOptions, type PostOutcome } from './transport/post-webhook.js';
