/** Command ids = policy actions (001 §5). The pipeline administration ids are ours (001 names none). */
export const INIT_SESSION = 'issuance.pipeline.init-session';
export const CONTRIBUTE_ATTRIBUTES = 'issuance.pipeline.contribute-attributes';
export const GET_SESSION_ATTRIBUTES = 'issuance.pipeline.get-session-attributes';
export const EVALUATE_COMPLETENESS = 'issuance.pipeline.evaluate-completeness';
export const APPROVE_SESSION = 'issuance.pipeline.approve-session';
export const RECORD_CONTRIBUTOR_FAILURE = 'issuance.pipeline.record-contributor-failure';
export const CONTRIBUTE_VIA_CALLBACK = 'issuance.pipeline.contribute-via-callback';
export const CREATE_PIPELINE = 'issuance.pipeline.create-pipeline';
export const UPDATE_PIPELINE = 'issuance.pipeline.update-pipeline';
export const GET_PIPELINE = 'issuance.pipeline.get-pipeline';
export const LIST_PIPELINES = 'issuance.pipeline.list-pipelines';
/**
 * The in-process session port (port/issuance-sessions.ts), called by the wallet-facing issuer after it has
 * authenticated the wallet: ours, 001 §5 names none. Audited like every command.
 */
export const ADVANCE_SESSION = 'issuance.pipeline.advance-session';
export const BUILD_CLAIMS = 'issuance.pipeline.build-claims';
export const MARK_DEFERRED = 'issuance.pipeline.mark-deferred';
export const MARK_ISSUED = 'issuance.pipeline.mark-issued';
export const RECORD_NOTIFICATION = 'issuance.pipeline.record-notification';
export const GET_SESSION = 'issuance.pipeline.get-session';
/** The outcome of one connector invocation applied to its session (connectors/connector-runner.ts). */
export const RECORD_INVOCATION_OUTCOME = 'issuance.pipeline.record-invocation-outcome';
/** GET /sessions/{correlationId}/invocations: the delivery status of the session's connector invocations. */
export const LIST_INVOCATIONS = 'issuance.pipeline.list-invocations';
/** The claim of the connector invocations an advance found awaited (connectors/connector-runner.ts). */
export const CLAIM_INVOCATIONS = 'issuance.pipeline.claim-invocations';
