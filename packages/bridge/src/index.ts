/**
 * The bridge (000 §1): OpenID4VP presentation sessions, verification of presented credentials, identity resolution.
 * The composition root adds `bridge: BridgeConfigSchema` to its configuration, `bridgeMigrations` to its
 * migrations, calls `registerBridgeRoutes` on the bridge role app and registers the returned jobs.
 */
export { BridgeConfigSchema, type BridgeConfig } from './config.js';
export { bridgeMigrations } from './storage/migrations.js';
export { registerBridgeRoutes, type BridgeHandle } from './http/register.js';
export {
  createBridgeServices,
  createRequestSigner,
  type BridgeDeps,
  type BridgeServices,
  type VerifierDisplayLookup,
} from './services.js';
export {
  createCertificateRequestCommand,
  CREATE_CERTIFICATE_REQUEST,
  type CertificateRequestInput,
} from './commands/create-certificate-request.js';
export { bridgeJobs, expireSessionsJob, EXPIRE_SESSIONS_JOB, EXPIRE_SESSIONS_INTERVAL_SECONDS } from './jobs.js';
export {
  completeSessionAfterIdv,
  getVerifiedPresentation,
  type VerifiedPresentation,
} from './commands/complete-session-after-idv.js';
// For the token service: the redemption of a completed wallet session (flows.md step 7; README "Redemption").
export { redeemSession, type RedeemSessionInput, type RedeemSessionOutput } from './commands/redeem-session.js';
export type {
  CompletionResult,
  IdvRequiredResult,
  SessionStatusView,
  ReconciliationPlanType,
} from './domain/session.js';
export type { SessionStatus } from './domain/session-state.js';
export { WALLET_LOGIN_QUERY_ID } from './domain/queries.js';

/** Path of the redemption endpoint on the bridge (POST, bearer token with `bridge.redeem.scope`). */
export const redeemPath = (sessionId: string) => `/auth/oid4vp/sessions/${encodeURIComponent(sessionId)}/redeem`;

// The external reconciliation API (000 §4.3; README "External reconciliation API"): registered by
// registerBridgeRoutes; its jobs are to be registered beside bridgeJobs.
export {
  ReconciliationConfigSchema,
  RECONCILIATION_SCOPES,
  type ReconciliationConfig,
  type ReconciliationClientConfig,
} from './reconciliation/config.js';
export {
  reconciliationJobs,
  purgeExpiredAuxiliaryJob,
  PURGE_EXPIRED_AUXILIARY_JOB,
  PURGE_EXPIRED_AUXILIARY_INTERVAL_SECONDS,
} from './reconciliation/jobs.js';
export { RECONCILIATION_BASE_PATH } from './reconciliation/http/routes.js';
export { computeIdentifierHash } from './reconciliation/domain/identifier-hash.js';

// Identity verification (000 §4.2; README "Identity verification"): the `bridge.idv` section, the callback path to
// register at the institutional provider, and the reason codes of the callback's redirect to the portal.
export { IdvConfigSchema, type IdvConfig } from './idv/config.js';
export { IDV_CALLBACK_PATH } from './idv/idv-services.js';
export { IDV_FAILURES, type IdvFailureReason } from './idv/domain/failure-reasons.js';
export type { ReconciliationStatus } from './idv/domain/reconciliation-state.js';
export { verifierQueriesExporter } from './export/verifier-queries-exporter.js';
