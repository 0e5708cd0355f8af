-- Status lists (001 §2.4, §4.3; IETF Token Status List; W3C Bitstring Status List v1.0 and StatusList2021).
--
-- A list keeps its configuration, an allocation counter and its statuses. Statuses are stored as the Token Status
-- List packs them (index i at bits i*bits .. i*bits+bits-1, least significant bit first), cut into chunks of 1 KiB;
-- a chunk that was never written is all zeros, so a new list of ten million entries writes no status at all.
-- Entries are not rows: index = permutation(counter) under the list's own key (domain/index-permutation.ts), so
-- the counter alone makes every allocation unique across replicas and never reuses an index.

CREATE TABLE status_lists (
  tenant_id        text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  list_id          text NOT NULL,
  -- The id of the first list of a roll-over chain, and this list's place in it (1 for the first).
  series_id        text NOT NULL,
  generation       integer NOT NULL CHECK (generation > 0),
  type             text NOT NULL CHECK (type IN ('OAuthStatusList', 'StatusList2021', 'BitstringStatusList')),
  status_purpose   text NOT NULL CHECK (status_purpose IN ('revocation', 'suspension', 'message')),
  bits             smallint NOT NULL CHECK (bits IN (1, 2, 4, 8)),
  length           integer NOT NULL CHECK (length > 0),
  issuer           text NOT NULL,
  key_alias        text NOT NULL,
  proof_format     text NOT NULL CHECK (proof_format IN ('jwt')),
  correlation_id   text,
  ttl_seconds      integer NOT NULL CHECK (ttl_seconds > 0),
  validity_seconds integer NOT NULL CHECK (validity_seconds > 0),
  -- Key of the index permutation (32 random bytes).
  permutation_key  bytea NOT NULL CHECK (octet_length(permutation_key) = 32),
  allocated        integer NOT NULL DEFAULT 0 CHECK (allocated >= 0 AND allocated <= length),
  -- Moved by every status change; the publication says which version it signed.
  version          bigint NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, list_id),
  UNIQUE (tenant_id, series_id, generation)
);
SELECT tessera_tenant_table('status_lists');

CREATE TABLE status_list_chunks (
  tenant_id  text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  list_id    text NOT NULL,
  chunk_no   integer NOT NULL CHECK (chunk_no >= 0),
  bytes      bytea NOT NULL,
  PRIMARY KEY (tenant_id, list_id, chunk_no),
  FOREIGN KEY (tenant_id, list_id) REFERENCES status_lists (tenant_id, list_id) ON DELETE CASCADE
);
SELECT tessera_tenant_table('status_list_chunks');

-- The last signed form of each list, shared by the replicas: a read serves it while it is current.
CREATE TABLE status_list_publications (
  tenant_id   text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  list_id     text NOT NULL,
  version     bigint NOT NULL,
  token       text NOT NULL,
  etag        text NOT NULL,
  signed_at   timestamptz NOT NULL,
  -- After this time the next read signs again, well before the token's own expiry.
  refresh_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, list_id),
  FOREIGN KEY (tenant_id, list_id) REFERENCES status_lists (tenant_id, list_id) ON DELETE CASCADE
);
SELECT tessera_tenant_table('status_list_publications');
