-- Platform core: tenants, row-level tenant isolation, the runtime role, jobs, keys, audit.

DO $$ BEGIN
  CREATE ROLE tessera_app NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;

CREATE TABLE tenants (
  id            text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  display_name  text NOT NULL,
  status        text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  host_names    text[] NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- Makes a table tenant-scoped: row-level security filters every statement by app.tenant_id, and rejects
-- writes into another tenant; platform units of work (app.platform = on) see every tenant.
CREATE FUNCTION tessera_tenant_table(t regclass) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', t);
  EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', t);
  EXECUTE format($p$CREATE POLICY tenant_isolation ON %s
    USING (tenant_id = current_setting('app.tenant_id', true) OR current_setting('app.platform', true) = 'on')
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true) OR current_setting('app.platform', true) = 'on')$p$, t);
END $fn$;

-- Grants the runtime role what the application needs; tables commented 'append-only' get no UPDATE or DELETE.
CREATE FUNCTION tessera_apply_grants() RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE r record;
BEGIN
  EXECUTE 'GRANT USAGE ON SCHEMA public TO tessera_app';
  EXECUTE 'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO tessera_app';
  EXECUTE 'GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO tessera_app';
  FOR r IN SELECT c.oid::regclass AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'public' AND c.relkind = 'r' AND obj_description(c.oid, 'pg_class') LIKE 'append-only%'
  LOOP
    EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %s FROM tessera_app', r.t);
  END LOOP;
END $fn$;

CREATE TABLE job_runs (
  job_name          text PRIMARY KEY,
  interval_seconds  integer NOT NULL,
  last_started_at   timestamptz,
  last_finished_at  timestamptz,
  last_status       text CHECK (last_status IN ('running', 'succeeded', 'failed')),
  last_error        text,
  run_count         bigint NOT NULL DEFAULT 0
);

-- Key management (software provider): private keys encrypted under the master key; one row per key version.
CREATE TABLE kms_keys (
  alias              text NOT NULL,
  version            integer NOT NULL,
  kid                text NOT NULL UNIQUE,
  algorithm          text NOT NULL,
  public_jwk         jsonb NOT NULL,
  encrypted_private  text NOT NULL,
  state              text NOT NULL CHECK (state IN ('active', 'retired')),
  created_at         timestamptz NOT NULL DEFAULT now(),
  retired_at         timestamptz,
  -- A retired key stays published until its last signature may still be in flight.
  publish_until      timestamptz,
  PRIMARY KEY (alias, version)
);
CREATE UNIQUE INDEX kms_keys_one_active ON kms_keys (alias) WHERE state = 'active';

CREATE TABLE audit_events (
  tenant_id       text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  seq             bigint NOT NULL,
  event_id        uuid NOT NULL,
  occurred_at     timestamptz NOT NULL,
  event_type      text NOT NULL,
  command_id      text,
  principal_id    text,
  result          text NOT NULL,
  correlation_id  text,
  trace_id        text,
  business_ids    jsonb NOT NULL DEFAULT '{}',
  details         jsonb NOT NULL DEFAULT '{}',
  prev_hash       text NOT NULL,
  hash            text NOT NULL,
  PRIMARY KEY (tenant_id, seq)
);
COMMENT ON TABLE audit_events IS 'append-only: hash-chained per tenant';
CREATE INDEX audit_events_time ON audit_events (tenant_id, occurred_at);
SELECT tessera_tenant_table('audit_events');

-- The head of each tenant's chain, locked FOR UPDATE by every append so that sequence numbers never fork.
CREATE TABLE audit_heads (
  tenant_id   text PRIMARY KEY DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  seq         bigint NOT NULL,
  hash        text NOT NULL
);
SELECT tessera_tenant_table('audit_heads');

CREATE TABLE audit_checkpoints (
  tenant_id   text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  seq         bigint NOT NULL,
  hash        text NOT NULL,
  signature   text NOT NULL,
  kid         text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, seq)
);
COMMENT ON TABLE audit_checkpoints IS 'append-only: signed audit chain heads';
SELECT tessera_tenant_table('audit_checkpoints');
