/**
 * The OpenID4VCI 1.0 issuer (issue 19): wallet-facing endpoints on the `issuance` role beside the pipeline backend.
 * The composition root adds `oid4vci: Oid4vciConfigSchema` to its configuration and hands `credentialIssuerFor`
 * (contract C) to the token service, which puts the tenant's credential issuer in the `aud` of its access tokens.
 */
export {
  Oid4vciConfigSchema,
  CredentialConfigurationSchema,
  credentialIssuerFor,
  ISSUER_STATUS_LIST_KEY_ALIAS,
  type Oid4vciConfig,
  type CredentialConfiguration,
} from './config.js';
export { registerOid4vciRoutes } from './register.js';
export type { Oid4vciDeps, AuthorizationServerPort } from './services.js';
export type { CredentialGrantsPort, IssuanceSessionsPort, StatusEntriesPort, DesignDisplayPort } from './ports.js';
export { oid4vciMigrations } from './storage/migrations.js';
export { issuerKeyAlias } from './credentials/issuer-keys.js';
