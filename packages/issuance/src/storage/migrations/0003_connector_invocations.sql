-- Connector invocations (001 §4.2, §6): one row per invocation binding of a session, written before the request
-- leaves (the unique key makes one replica's claim win when two advance one session at once), then its delivery
-- status: attempts, the last HTTP status, the last error kind, the latency, and the outcome. Never a payload.
CREATE TABLE issuance_connector_invocations (
  tenant_id         text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id                uuid NOT NULL,
  session_id        uuid NOT NULL,
  connector_id      text NOT NULL,
  phase             text NOT NULL,
  mode              text NOT NULL CHECK (mode IN ('SYNCHRONOUS', 'DEFERRABLE')),
  -- invoking → contributed (answered with groups) | accepted (202: the callback will follow) | failed
  status            text NOT NULL CHECK (status IN ('invoking', 'contributed', 'accepted', 'failed')),
  attempts          integer NOT NULL DEFAULT 0,
  last_status_code  integer,
  last_error_kind   text,
  last_latency_ms   integer,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, session_id, connector_id, phase),
  FOREIGN KEY (tenant_id, session_id) REFERENCES issuance_sessions (tenant_id, id) ON DELETE CASCADE
);
SELECT tessera_tenant_table('issuance_connector_invocations');

-- The circuit breaker per connector destination (001 §6), shared by every replica: the platform's breaker
-- (outbound/storage/breaker-store.ts) runs on these columns, as it does on the webhook destinations.
CREATE TABLE issuance_connector_circuits (
  tenant_id             text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id                    text NOT NULL,
  circuit_state         text NOT NULL DEFAULT 'closed' CHECK (circuit_state IN ('closed', 'open', 'half_open')),
  consecutive_failures  integer NOT NULL DEFAULT 0,
  opened_at             timestamptz,
  probe_until           timestamptz,
  PRIMARY KEY (tenant_id, id)
);
SELECT tessera_tenant_table('issuance_connector_circuits');
