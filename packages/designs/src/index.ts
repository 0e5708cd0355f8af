/**
 * The credential design registry (001 §2.1, §4.1): credential, issuer and verifier designs, imports, resolution.
 * The composition root adds `designs: DesignsConfigSchema` to its configuration, `designsMigrations` to its
 * migrations, and calls `registerDesignsRoutes` on the `designs` role app.
 */
export { DesignsConfigSchema, type DesignsConfig } from './config.js';
export { registerDesignsRoutes, createDesignsServices, type DesignsDeps } from './register.js';
export { designsMigrations } from './storage/migrations.js';
export type { DesignRecord, RenderVariant } from './domain/records.js';
export { credentialDesignsExporter } from './export/designs-exporter.js';
/** For the issuer's metadata and the bridge's request object: displays from bound designs (issue 17 item 6). */
export { createDesignDisplays, type DesignDisplays, type OpenId4VciDisplay } from './display/design-displays.js';
