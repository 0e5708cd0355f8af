/**
 * @tessera/pkce-dpop: PKCE (RFC 7636) and DPoP (RFC 9449) for OAuth 2.0 clients and servers (spec 002 §2.2,
 * §4.2, §4.3, §5). No framework, no database: keys come in through DpopKeySigner, replay state through
 * DpopReplayStore.
 */

// PKCE
export type { PkceData, PkceMethod } from './pkce/pkce-types.js';
export { DEFAULT_PKCE_METHODS, PKCE_METHODS } from './pkce/pkce-types.js';
export { PkceError, type PkceErrorCode, type PkceFailureReason } from './pkce/pkce-error.js';
export { createPkce } from './pkce/create-pkce.js';
export { verifyPkce } from './pkce/verify-pkce.js';
export { validateCodeChallenge } from './pkce/validate-code-challenge.js';
export { computeCodeChallenge } from './pkce/compute-code-challenge.js';
export { isValidCodeChallenge, isValidCodeVerifier } from './pkce/check-pkce-format.js';

// DPoP proofs
export type {
  DpopContext,
  DpopIssuer,
  DpopKeySigner,
  DpopProofHeader,
  DpopProofPayload,
  DpopSigningAlg,
  DpopVerificationAlg,
  ManagedIdentifier,
} from './dpop/dpop-types.js';
export { DEFAULT_DPOP_ALGS, DPOP_JWT_TYPE, DPOP_VERIFICATION_ALGS } from './dpop/dpop-types.js';
export { createDpopProof, type CreateDpopProofOptions, type DpopProof } from './dpop/create-dpop-proof.js';
export {
  verifyDpopProof,
  DEFAULT_CLOCK_SKEW_SECONDS,
  DEFAULT_IAT_WINDOW_SECONDS,
  type VerifiedDpopProof,
  type VerifyDpopProofOptions,
} from './dpop/verify-dpop-proof.js';
export { DpopError, type DpopErrorCode, type DpopFailureReason } from './dpop/dpop-error.js';
export { dpopChallenge } from './dpop/dpop-challenge.js';
export {
  DpopNonceManager,
  type DpopNonceMac,
  type DpopNonceManagerOptions,
  type DpopNonceValidator,
} from './dpop/dpop-nonce-manager.js';
export { createDpopContext } from './dpop/create-dpop-context.js';
export { generateDpopKeyPair } from './dpop/generate-dpop-key-pair.js';
export { dpopSignerFromKeyManager, type DpopKeyManager } from './dpop/dpop-signer-from-key-manager.js';
export { computeAccessTokenHash } from './dpop/compute-access-token-hash.js';
export { computeJwkThumbprint } from './dpop/compute-jwk-thumbprint.js';
export { normalizeHttpUri } from './dpop/normalize-htu.js';
export { MAX_DPOP_PROOF_LENGTH } from './dpop/read-dpop-header.js';

// Replay stores
export { dpopReplayKey, type DpopReplayStore } from './replay/dpop-replay-store.js';
export {
  MemoryDpopReplayStore,
  DpopReplayStoreFullError,
  type MemoryDpopReplayStoreOptions,
} from './replay/memory-dpop-replay-store.js';
export {
  RedisDpopReplayStore,
  type RedisDpopReplayStoreOptions,
  type RedisSetClient,
} from './replay/redis-dpop-replay-store.js';
export {
  SqlDpopReplayStore,
  DPOP_REPLAY_TABLE_SQL,
  DEFAULT_DPOP_REPLAY_TABLE,
  createDpopReplayTableSql,
  type SqlExecutor,
} from './replay/sql-dpop-replay-store.js';

// OAuth client
export type {
  AuthorizationRequest,
  AuthorizationResponse,
  AuthorizationServerMetadata,
  ClientAuthentication,
  FetchLike,
  HttpRequestOptions,
  TokenResponse,
} from './client/client-types.js';
export { OAuthClientError, type OAuthClientErrorCode } from './client/oauth-client-error.js';
export { fetchAuthorizationServerMetadata } from './client/fetch-authorization-server-metadata.js';
export { initiateAuthorization, type InitiateAuthorizationOptions } from './client/initiate-authorization.js';
export {
  parseAuthorizationResponse,
  type ExpectedAuthorizationResponse,
} from './client/parse-authorization-response.js';
export {
  exchangeAuthorizationCode,
  type ExchangeAuthorizationCodeOptions,
} from './client/exchange-authorization-code.js';
export { refreshAccessToken, type RefreshAccessTokenOptions } from './client/refresh-access-token.js';
export { createDpopRequestHeaders, rememberDpopNonce } from './client/create-dpop-request-headers.js';
export { isLoopbackHost } from './client/check-request-url.js';
