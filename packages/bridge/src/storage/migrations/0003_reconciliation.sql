-- The external reconciliation API (000 §2.6, §3.3, §4.3): auxiliary data records per identity and category, and
-- the replay index of DPoP proofs presented to the API (RFC 9449 §11.1).

-- One auxiliary data record per (identity, category). The data (a JSON object, opaque to the service, at most
-- 64 KB of canonical JSON) is sealed with the key manager's envelope encryption, bound to tenant, identity and
-- category: nothing a client stores is readable from the column. The erasure of the identity deletes its records in
-- its unit of work; the foreign key to the identity (added when the identity context's tables exist, as they do in
-- every deployment; some bridge tests migrate without them) also refuses a record written for an identity erased
-- concurrently, and removes records with their identity.
CREATE TABLE reconciliation_auxiliary_data (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  identity_id  uuid NOT NULL,
  category     text NOT NULL CHECK (category ~ '^[A-Za-z0-9._-]{1,64}$'),
  data_sealed  text NOT NULL,
  -- The calling client (000 §2.6 storedBy) and the time of storage.
  stored_by    text NOT NULL,
  stored_at    timestamptz NOT NULL,
  -- After this time the record is gone for every read and eligible for cleanup; NULL: never expires.
  expires_at   timestamptz,
  PRIMARY KEY (tenant_id, identity_id, category)
);
SELECT tessera_tenant_table('reconciliation_auxiliary_data');
DO $$
BEGIN
  IF to_regclass('identities') IS NOT NULL THEN
    ALTER TABLE reconciliation_auxiliary_data ADD CONSTRAINT reconciliation_auxiliary_data_identity
      FOREIGN KEY (tenant_id, identity_id) REFERENCES identities (tenant_id, internal_identity_id) ON DELETE CASCADE;
  END IF;
END $$;
CREATE INDEX reconciliation_auxiliary_data_expiry ON reconciliation_auxiliary_data (expires_at)
  WHERE expires_at IS NOT NULL;

-- DPoP proofs accepted by the API: the key is @tessera/pkce-dpop's dpopReplayKey (SHA-256 over the key
-- thumbprint, htu and jti), held until the proof could no longer pass the iat check. Not tenant-scoped: the key
-- already contains the client key's thumbprint. The shape is createDpopReplayTableSql('reconciliation_dpop_replay').
CREATE TABLE reconciliation_dpop_replay (
  jti_key     text PRIMARY KEY,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX reconciliation_dpop_replay_expires_at ON reconciliation_dpop_replay (expires_at);
