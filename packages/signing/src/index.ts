/**
 * The document-signing API (002 §2.1, §4.1): PAdES and raw signatures, certificate import and key linking.
 * The composition root adds `signing: SigningConfigSchema` to its configuration, `signingMigrations` to its
 * migrations, and calls `registerSigningRoutes` on the `signing` role app. README.md describes the API.
 */
export { SigningConfigSchema, type SigningConfig } from './config.js';
export { registerSigningRoutes, type SigningDeps } from './register.js';
export { signingMigrations } from './storage/migrations.js';
export { SIGNING_BASE_PATH, SIGNING_PATHS } from './http/routes.js';
export {
  SIGNATURE_ALGORITHMS,
  DIGEST_ALGORITHMS,
  type SignatureAlgorithm,
  type DigestAlgorithm,
} from './domain/algorithms.js';
export type { SigningServices } from './services.js';
export { documentSigningKeysExporter } from './export/signing-keys-exporter.js';
