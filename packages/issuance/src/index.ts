/**
 * The issuance pipeline backend (001 §2.2, §3, §4.2): pipeline configurations, sessions that gather attributes
 * and connector fields from contributors into a sealed attribute bag, completeness, review and contributor
 * failures. The composition root adds `issuance: IssuanceConfigSchema` to its configuration, `issuanceMigrations`
 * to its migrations, and calls `registerIssuanceRoutes` on the `issuance` role app.
 */
export { IssuanceConfigSchema, type IssuanceConfig } from './config.js';
export { registerIssuanceRoutes, type IssuanceDeps } from './register.js';
export { issuanceMigrations } from './storage/migrations.js';
/** For the connector invocations: the callback URL carries a fresh capability token (001 §4.2). */
export { issueCallbackToken, verifyCallbackToken, type CallbackClaims } from './crypto/callback-token.js';
export { purgeExpired, purgeExpiredJob, PURGE_EXPIRED_JOB } from './jobs/purge-expired-job.js';
/** The session port of the wallet-facing issuer (contract D): drive a session in-process. */
export {
  createIssuanceSessions,
  issuanceSessionsOn,
  type IssuanceSessions,
  type IssuanceSessionsPort,
  type SessionView,
} from './port/issuance-sessions.js';
export type { InitSessionInput } from './commands/init-session.js';
export type { ClaimsForOutput } from './commands/build-claims.js';
export type { NotificationEvent } from './commands/record-notification.js';
export type { Phase } from './domain/phases.js';
export { PHASES } from './domain/phases.js';
export type { SessionStatus } from './domain/session-machine.js';
export type { PipelineConfigurationInput } from './domain/pipeline.js';
export { issuancePipelinesExporter } from './export/pipelines-exporter.js';
