-- IDV reconciliations (000 §2.4, §3.2, §4.2): one row per attempt of identity verification at the institutional
-- provider, owned by a presentation session (deleted with it by the session cleanup). The PKCE verifier and the
-- verified login awaiting its recording are sealed (envelope encryption under the key manager, bound to tenant,
-- attempt and field); the nonce travels in the authorization URL and is kept as issued. The state itself is not
-- stored: its random id (state_id) is, and is spent once (state_spent_at) in the conditional move to
-- CALLBACK_RECEIVED.
CREATE TABLE bridge_idv_reconciliations (
  tenant_id        text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id               uuid NOT NULL,
  -- Order of the attempts (two may share a creation time): the latest is what status and submit speak about.
  seq              bigint GENERATED ALWAYS AS IDENTITY,
  session_id       uuid NOT NULL,
  provider_id      text NOT NULL,
  status           text NOT NULL CHECK (status IN ('CREATED', 'REDIRECTED', 'CALLBACK_RECEIVED', 'COMPLETED', 'ERROR')),
  error_reason     text,
  error_message    text,
  correlation_id   text NOT NULL,
  state_id         text NOT NULL,
  nonce            text,
  pkce_sealed      text,
  outcome_sealed   text,
  identity_id      text,
  history          jsonb NOT NULL DEFAULT '[]',
  created_at       timestamptz NOT NULL,
  expires_at       timestamptz NOT NULL,
  state_spent_at   timestamptz,
  completed_at     timestamptz,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, session_id) REFERENCES bridge_sessions (tenant_id, id) ON DELETE CASCADE
);
-- The callback reaches an attempt by the id its state names, without a tenant (ids are random UUIDs).
CREATE UNIQUE INDEX bridge_idv_reconciliations_id ON bridge_idv_reconciliations (id);
-- At most one open attempt per presentation session: two concurrent initiates cannot both start one.
CREATE UNIQUE INDEX bridge_idv_reconciliations_open ON bridge_idv_reconciliations (tenant_id, session_id)
  WHERE status IN ('CREATED', 'REDIRECTED', 'CALLBACK_RECEIVED');
CREATE INDEX bridge_idv_reconciliations_session ON bridge_idv_reconciliations (tenant_id, session_id, seq);
SELECT tessera_tenant_table('bridge_idv_reconciliations');
