-- Credential design registry (001 §2.1, §4.1): credential, issuer and verifier designs, their bindings, source
-- snapshots, render variants and assets. Every table is tenant-scoped by row-level security.

CREATE TABLE design_records (
  tenant_id        text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id               uuid NOT NULL,
  entity_type      text NOT NULL CHECK (entity_type IN ('CREDENTIAL', 'ISSUER', 'VERIFIER')),
  alias            text NOT NULL,
  hosting_mode     text NOT NULL,
  source_type      text,
  source_url       text,
  snapshot_id      uuid,
  -- The editable fields (displays, claims, policy URIs, locked fields), as the API shows them.
  document         jsonb NOT NULL CHECK (jsonb_typeof(document) = 'object'),
  -- The last mapping of the source snapshot (imported designs): the "snapshot" layer of a resolve.
  source_document  jsonb,
  revision         integer NOT NULL DEFAULT 1,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
SELECT tessera_tenant_table('design_records');
CREATE INDEX design_records_kind ON design_records (tenant_id, entity_type, created_at);

-- A binding pair is unique per tenant within each kind of design (001 §2.1: duplicate → ALREADY_EXISTS_ERROR).
CREATE TABLE design_bindings (
  tenant_id      text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  entity_type    text NOT NULL,
  binding_key    text NOT NULL,
  binding_value  text NOT NULL,
  design_id      uuid NOT NULL,
  position       integer NOT NULL,
  PRIMARY KEY (tenant_id, entity_type, binding_key, binding_value),
  FOREIGN KEY (tenant_id, design_id) REFERENCES design_records (tenant_id, id) ON DELETE CASCADE
);
SELECT tessera_tenant_table('design_bindings');
CREATE INDEX design_bindings_design ON design_bindings (tenant_id, design_id);

-- The raw payload an import fetched, with its validators for the conditional refresh (001 §3).
CREATE TABLE design_snapshots (
  tenant_id      text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id             uuid NOT NULL,
  entity_type    text NOT NULL,
  source_url     text NOT NULL,
  source_type    text NOT NULL,
  content_type   text NOT NULL,
  payload        bytea NOT NULL,
  sha256         text NOT NULL,
  etag           text,
  last_modified  text,
  fetched_at     timestamptz NOT NULL,
  checked_at     timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
SELECT tessera_tenant_table('design_snapshots');

CREATE TABLE design_render_variants (
  tenant_id      text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id             uuid NOT NULL,
  design_id      uuid NOT NULL,
  render_target  text NOT NULL,
  document       jsonb NOT NULL CHECK (jsonb_typeof(document) = 'object'),
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, design_id) REFERENCES design_records (tenant_id, id) ON DELETE CASCADE
);
SELECT tessera_tenant_table('design_render_variants');
CREATE INDEX design_render_variants_design ON design_render_variants (tenant_id, design_id);

CREATE TABLE design_assets (
  tenant_id      text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  design_id      uuid NOT NULL,
  locale         text NOT NULL,
  asset_type     text NOT NULL,
  content_type   text NOT NULL,
  size           integer NOT NULL,
  sha256         text NOT NULL,
  blob_key       text NOT NULL,
  created_at     timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, design_id, locale, asset_type),
  FOREIGN KEY (tenant_id, design_id) REFERENCES design_records (tenant_id, id) ON DELETE CASCADE
);
SELECT tessera_tenant_table('design_assets');

-- The PostgreSQL blob store (storage/blob-store.ts); an S3-compatible store can take its place.
CREATE TABLE design_blobs (
  tenant_id  text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  blob_key   text NOT NULL,
  bytes      bytea NOT NULL,
  PRIMARY KEY (tenant_id, blob_key)
);
SELECT tessera_tenant_table('design_blobs');
