-- Callback capability tokens already used (001 §4.2: single use). The row is written in the same unit of work as
-- the contribution: a refused contribution spends nothing, and of two concurrent uses one wins (primary key).
-- Rows outlive their token's expiry only until a purge removes them (expires_at).
CREATE TABLE issuance_spent_callback_tokens (
  tenant_id       text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  jti             uuid NOT NULL,
  correlation_id  text NOT NULL,
  spent_at        timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, jti)
);
SELECT tessera_tenant_table('issuance_spent_callback_tokens');
CREATE INDEX issuance_spent_callback_tokens_expiry ON issuance_spent_callback_tokens (expires_at);
