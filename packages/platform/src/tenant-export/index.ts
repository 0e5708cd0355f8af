export * from './exporter.js';
export * from './document.js';
export * from './tenant-transfer.js';
export * from './http/tenant-export-routes.js';
export { EXPORT_TENANT } from './commands/export-tenant.js';
export { IMPORT_TENANT } from './commands/import-tenant.js';
export { webhookDestinationsExporter } from './sections/webhook-destinations.js';
export { signingKeyAliasesExporter, isTenantAlias } from './sections/signing-key-aliases.js';
export { eventStreamsExporter } from './sections/event-streams.js';
