-- Issuance pipeline backend (001 §2.2, §4.2): pipeline configurations, sessions and their attribute bag.
--
-- The attribute bag is one row per attribute (not one document per session): two contributions to one session,
-- from two processes at once, each insert their own rows and cannot overwrite each other's. The session row is
-- locked (SELECT ... FOR UPDATE) only to move its state. Values are sealed (envelope encryption per tenant,
-- bound to table, tenant, row and column): the tables hold no contributed value in clear, unless a session was
-- created with encryption mode NONE (refused in production).

CREATE TABLE issuance_pipelines (
  tenant_id      text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  pipeline_id    text NOT NULL,
  configuration  jsonb NOT NULL CHECK (jsonb_typeof(configuration) = 'object'),
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, pipeline_id)
);
SELECT tessera_tenant_table('issuance_pipelines');

CREATE TABLE issuance_sessions (
  tenant_id        text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  correlation_id   text NOT NULL,
  id               uuid NOT NULL,
  pipeline_id      text NOT NULL,
  -- The pipeline as it was when the session began: a later update of the stored pipeline does not move it.
  pipeline         jsonb NOT NULL,
  encryption_mode  text NOT NULL CHECK (encryption_mode IN ('TENANT_ENVELOPE', 'NONE')),
  status           text NOT NULL,
  state            jsonb NOT NULL,
  failure_reason   text,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  expires_at       timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, correlation_id),
  UNIQUE (tenant_id, id)
);
SELECT tessera_tenant_table('issuance_sessions');
CREATE INDEX issuance_sessions_expiry ON issuance_sessions (expires_at);

CREATE TABLE issuance_session_attributes (
  tenant_id       text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  session_id      uuid NOT NULL,
  id              uuid NOT NULL,
  path            text NOT NULL,
  -- The sealed JSON value (TENANT_ENVELOPE) or the JSON text itself (NONE).
  value           text NOT NULL,
  contributor_id  text NOT NULL,
  phase           text NOT NULL,
  bundle_id       text,
  contributed_at  timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, session_id) REFERENCES issuance_sessions (tenant_id, id) ON DELETE CASCADE
);
SELECT tessera_tenant_table('issuance_session_attributes');
CREATE INDEX issuance_session_attributes_session ON issuance_session_attributes (tenant_id, session_id, contributed_at);

-- Connector fields: operational inputs of connector invocations (001 §2.2), never claims. The latest value of a
-- name wins; the name is readable, the value only to the pipeline.
CREATE TABLE issuance_session_connector_fields (
  tenant_id       text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  session_id      uuid NOT NULL,
  name            text NOT NULL,
  id              uuid NOT NULL,
  value           text NOT NULL,
  contributor_id  text NOT NULL,
  phase           text NOT NULL,
  contributed_at  timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, session_id, name),
  FOREIGN KEY (tenant_id, session_id) REFERENCES issuance_sessions (tenant_id, id) ON DELETE CASCADE
);
SELECT tessera_tenant_table('issuance_session_connector_fields');
