// Public API of @tessera/test-wallet: a test credential issuer, a holder wallet that answers OpenID4VP 1.0
// requests (with hostile variants for verifier tests), and the development helpers the CLI and server share.

export { createTestIssuer } from './issuer/create-test-issuer.js';
export type { CreateTestIssuerOptions, StatusListUris, TestIssuer } from './issuer/create-test-issuer.js';
export type { IssueSdJwtVcOptions } from './issuer/issue-sd-jwt-vc.js';
export type { IssueJwtVcOptions } from './issuer/issue-jwt-vc.js';
export type { IssuerKeyReference } from './issuer/create-issuer-signer.js';
export type { CredentialStatus } from './issuer/create-status-registry.js';
export { TOKEN_STATUS_LIST_SIZE, W3C_STATUS_LIST_SIZE } from './issuer/create-status-registry.js';
export type { StatusListFault } from './issuer/status-list-fault.js';
export type { StatusPurpose } from './issuer/sign-status-list-credential.js';
export type { StatusListServer } from './issuer/serve-status-lists.js';

export { createTestWallet } from './wallet/create-test-wallet.js';
export type { BindingKey, CreateTestWalletOptions, TestWallet } from './wallet/create-test-wallet.js';
export type { RespondOptions } from './wallet/respond-options.js';
export type { RespondResult } from './wallet/respond-to-request.js';
export type { CapturedResponse } from './wallet/captured-response.js';
export type { HeldCredential, StatusReference } from './wallet/decode-held-credential.js';
export type { ReceivedFrom } from './wallet/store-credentials.js';
export type { ReceiveOptions, ReceiveResult } from './oid4vci/receive-credential-offer.js';
export { WalletError } from './wallet/wallet-error.js';
export type { WalletErrorCode } from './wallet/wallet-error.js';
export { computeSdHash } from './wallet/sign-key-binding-jwt.js';

export { issueCredentialToWallet } from './issue-credential-to-wallet.js';
export type { IssueCredentialToWalletOptions } from './issue-credential-to-wallet.js';

export { loadOrCreateDevelopmentIssuer } from './development/load-development-issuer.js';
export {
  DEFAULT_WALLET_DATA_DIR,
  DEMO_VC_TYPE,
  DEMO_VCT,
  DEVELOPMENT_STATUS_BASE_URL,
  DEVELOPMENT_STATUS_PORT,
} from './development/demo-constants.js';
export { DEMO_PERSONAS } from './development/demo-personas.js';
export type { DemoPersona } from './development/demo-personas.js';

export { runCli } from './cli/run-cli.js';
export type { CliIo } from './cli/cli-io.js';

export type { CredentialFormat, IssuedCredential } from './common/credential-format.js';
export type { Clock } from './common/clock.js';

// Building blocks a verifier's own tests can reuse (keys, DIDs, certificates).
export { generateEs256Key, toPublicJwk } from './crypto/generate-es256-key.js';
export { createDidJwk, didJwkKeyId } from './crypto/create-did-jwk.js';
export { resolveDidPublicJwk } from './crypto/resolve-did-key.js';
export {
  createCertificateAuthority,
  createLeafCertificate,
  createSelfSignedLeafCertificate,
} from './x509/create-certificates.js';
export type { CertificateAuthority, SubjectAlternativeNames } from './x509/create-certificates.js';
export { pemToX5cEntry } from './x509/convert-pem.js';
