/**
 * The document-signing API (002 §2.1, §4.1): PAdES and raw signatures, certificate import and key linking.
 * The composition root adds `signing: SigningConfigSchema` to its configuration, `signingMigrations` to its
 * migrations, and calls `registerSigningRoutes` on the `signing` role app.
 */
import type { Migration } from '@tessera/platform';

export { SigningConfigSchema, type SigningConfig } from './config.js';
export { registerSigningRoutes, type SigningDeps } from './register.js';

export const signingMigrations: Migration[] = [];
