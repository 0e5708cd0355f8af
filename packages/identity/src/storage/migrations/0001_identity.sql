-- Identity context (000 §2.5, §3.3, §4.3; issue 5 §5–7): identities with sealed claims, the HMAC lookup index,
-- wallet and federation bindings, the tenant's identity key versions, and the key migration history.
--
-- No column holds a claim, an identifier, a holder key or a federation subject in the clear. Values are sealed by
-- envelope encryption under the tenant's key-encryption key (`identity:<tenant>:dek`), and looked up through their
-- HMAC-SHA256 under the tenant's HMAC key (`identity:<tenant>:hmac`). While a key migration is open, the `next_*`
-- columns and the identifier rows of the new HMAC version hold each value's form under the new keys.

-- The key versions the tenant's records are under (the "current" forms); switched by a completed key migration.
CREATE TABLE identity_key_state (
  tenant_id     text PRIMARY KEY DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  dek_version   integer NOT NULL CHECK (dek_version > 0),
  hmac_version  integer NOT NULL CHECK (hmac_version > 0),
  updated_at    timestamptz NOT NULL
);
SELECT tessera_tenant_table('identity_key_state');

CREATE TABLE identities (
  tenant_id              text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  internal_identity_id   uuid NOT NULL,
  -- Envelope (key manager `encrypt`) of the claims' JSON, bound to tenant and identity.
  encrypted_claims       text NOT NULL,
  next_encrypted_claims  text,
  acr                    text NOT NULL,
  amr                    jsonb NOT NULL CHECK (jsonb_typeof(amr) = 'array'),
  created_at             timestamptz NOT NULL,
  updated_at             timestamptz NOT NULL,
  last_authenticated_at  timestamptz,
  PRIMARY KEY (tenant_id, internal_identity_id)
);
SELECT tessera_tenant_table('identities');

-- A wallet holder key bound to an identity. The key is looked up only through its HMAC (an identity_identifiers
-- row of type KEY, one per HMAC version); the sealed copy lets a key migration compute the new HMAC.
CREATE TABLE wallet_bindings (
  tenant_id               text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  binding_id              uuid NOT NULL,
  identity_id             uuid NOT NULL,
  sealed_holder_key       text NOT NULL,
  next_sealed_holder_key  text,
  created_at              timestamptz NOT NULL,
  last_used_at            timestamptz,
  -- 000 §3.3: soft-deleted after the inactivity threshold, hard-deleted after the soft-delete retention.
  soft_deleted_at         timestamptz,
  PRIMARY KEY (tenant_id, binding_id),
  FOREIGN KEY (tenant_id, identity_id) REFERENCES identities (tenant_id, internal_identity_id) ON DELETE CASCADE
);
SELECT tessera_tenant_table('wallet_bindings');
CREATE INDEX wallet_bindings_identity ON wallet_bindings (tenant_id, identity_id);
CREATE INDEX wallet_bindings_inactive ON wallet_bindings (tenant_id, (COALESCE(last_used_at, created_at)))
  WHERE soft_deleted_at IS NULL;
CREATE INDEX wallet_bindings_soft_deleted ON wallet_bindings (tenant_id, soft_deleted_at)
  WHERE soft_deleted_at IS NOT NULL;

-- The HMAC lookup index (000 §4.3): mac = base64url, no padding, of HMAC-SHA256(tenant HMAC key version
-- key_version, identifier UTF-8). SERVICE_ID and EPPN rows come from the claims, KEY rows from live wallet bindings.
CREATE TABLE identity_identifiers (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  identity_id  uuid NOT NULL,
  type         text NOT NULL CHECK (type IN ('KEY', 'SERVICE_ID', 'EPPN')),
  key_version  integer NOT NULL CHECK (key_version > 0),
  mac          text NOT NULL CHECK (mac ~ '^[A-Za-z0-9_-]{43}$'),
  binding_id   uuid,
  CHECK ((type = 'KEY') = (binding_id IS NOT NULL)),
  PRIMARY KEY (tenant_id, key_version, type, mac, identity_id),
  FOREIGN KEY (tenant_id, identity_id) REFERENCES identities (tenant_id, internal_identity_id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, binding_id) REFERENCES wallet_bindings (tenant_id, binding_id) ON DELETE CASCADE
);
SELECT tessera_tenant_table('identity_identifiers');
-- One live wallet binding per holder key (per HMAC version).
CREATE UNIQUE INDEX identity_identifiers_one_wallet ON identity_identifiers (tenant_id, key_version, mac)
  WHERE type = 'KEY';
CREATE INDEX identity_identifiers_lookup ON identity_identifiers (tenant_id, type, mac);
CREATE INDEX identity_identifiers_identity ON identity_identifiers (tenant_id, identity_id);
CREATE INDEX identity_identifiers_binding ON identity_identifiers (tenant_id, binding_id) WHERE binding_id IS NOT NULL;

-- A federation subject (issuer, sub) bound to an identity: looked up through the HMAC of "issuer|subject".
CREATE TABLE federation_bindings (
  tenant_id            text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  binding_id           uuid NOT NULL,
  identity_id          uuid NOT NULL,
  issuer               text NOT NULL,
  subject_mac          text NOT NULL CHECK (subject_mac ~ '^[A-Za-z0-9_-]{43}$'),
  next_subject_mac     text CHECK (next_subject_mac ~ '^[A-Za-z0-9_-]{43}$'),
  sealed_subject       text NOT NULL,
  next_sealed_subject  text,
  created_at           timestamptz NOT NULL,
  last_used_at         timestamptz,
  soft_deleted_at      timestamptz,
  CHECK ((next_subject_mac IS NULL) = (next_sealed_subject IS NULL)),
  PRIMARY KEY (tenant_id, binding_id),
  FOREIGN KEY (tenant_id, identity_id) REFERENCES identities (tenant_id, internal_identity_id) ON DELETE CASCADE
);
SELECT tessera_tenant_table('federation_bindings');
CREATE UNIQUE INDEX federation_bindings_live_subject ON federation_bindings (tenant_id, subject_mac)
  WHERE soft_deleted_at IS NULL;
CREATE UNIQUE INDEX federation_bindings_live_next_subject ON federation_bindings (tenant_id, next_subject_mac)
  WHERE soft_deleted_at IS NULL AND next_subject_mac IS NOT NULL;
CREATE INDEX federation_bindings_identity ON federation_bindings (tenant_id, identity_id);
CREATE INDEX federation_bindings_inactive ON federation_bindings (tenant_id, (COALESCE(last_used_at, created_at)))
  WHERE soft_deleted_at IS NULL;
CREATE INDEX federation_bindings_soft_deleted ON federation_bindings (tenant_id, soft_deleted_at)
  WHERE soft_deleted_at IS NOT NULL;

-- Key migration history (000 §2.5 "key migration record"; transitions: packages/identity/README.md).
CREATE TABLE key_migrations (
  tenant_id          text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id                 uuid NOT NULL,
  status             text NOT NULL CHECK (status IN ('IN_PROGRESS', 'COMPLETED', 'FAILED', 'ROLLED_BACK')),
  old_dek_version    integer NOT NULL,
  new_dek_version    integer NOT NULL,
  old_hmac_version   integer NOT NULL,
  new_hmac_version   integer NOT NULL,
  batch_size         integer NOT NULL CHECK (batch_size > 0),
  records_processed  bigint NOT NULL DEFAULT 0,
  records_failed     bigint NOT NULL DEFAULT 0,
  records_skipped    bigint NOT NULL DEFAULT 0,
  records_purged     bigint NOT NULL DEFAULT 0,
  batches_committed  integer NOT NULL DEFAULT 0,
  -- The last identity a committed batch visited: a resumed runner continues after it.
  last_cursor        uuid,
  started_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL,
  finished_at        timestamptz,
  error              text,
  PRIMARY KEY (tenant_id, id)
);
SELECT tessera_tenant_table('key_migrations');
-- At most one open migration (IN_PROGRESS or FAILED) per tenant.
CREATE UNIQUE INDEX key_migrations_one_open ON key_migrations (tenant_id) WHERE status IN ('IN_PROGRESS', 'FAILED');
CREATE INDEX key_migrations_started ON key_migrations (tenant_id, started_at);
