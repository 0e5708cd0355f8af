export * from './config.js';
export * from './context.js';
export * from './migrations.js';
export * from './create-token-service.js';
export type { WalletSessionRedeemer, RedeemOutcome, WalletLoginResult } from './wallet/bridge-client.js';
export { signingKeyAlias } from './tokens/token-signer.js';
export { parseStoredSecret } from './clients/client-secret.js';
export { PORTAL_CHECK_SCOPE, type AuthorizationRequestVerdict } from './commands/check-authorization-request.js';
export { hashClientSecret } from './clients/client-secret.js';
export {
  createCredentialGrants,
  CREDENTIAL_GRANTS_SCOPE,
  type CredentialGrants,
  type CredentialGrantsOptions,
} from './oid4vci/credential-grants.js';
export { tokenServiceClientsExporter } from './export/clients-exporter.js';
export { DEV_WALLET_CLIENT_ID } from './clients/client-registry.js';
// For the bridge's identity erasure (through the port it declares; the composition root wires it): every grant of a
// subject revoked in the caller's unit of work (issue 13 §9).
export {
  revokeSubjectGrants,
  REVOKE_SUBJECT_GRANTS,
  type RevokeSubjectGrants,
  type SubjectGrantsUnit,
  type SubjectGrantsRevoked,
} from './commands/revoke-subject-grants.js';
