-- Symmetric keys of the software key-management provider (issue 5 §5): HMAC keys (HS256) for lookup indexes and
-- key-encryption keys (A256GCM) for envelope encryption. Each version's secret is sealed under the master key, bound
-- to its row, exactly like a private key in kms_keys. A version waits as 'pending' until a re-encryption has caught
-- up, then becomes 'active'; a retired version still opens what it sealed and still computes its MACs.
CREATE TABLE kms_symmetric_keys (
  alias             text NOT NULL,
  version           integer NOT NULL CHECK (version > 0),
  kid               text NOT NULL UNIQUE,
  algorithm         text NOT NULL CHECK (algorithm IN ('HS256', 'A256GCM')),
  -- Only a shared lookup key (000 §4.3: "the shared HMAC key is exchanged out of band") ever leaves the provider.
  exportable        boolean NOT NULL DEFAULT false CHECK (NOT exportable OR algorithm = 'HS256'),
  encrypted_secret  text NOT NULL,
  state             text NOT NULL CHECK (state IN ('pending', 'active', 'retired')),
  created_at        timestamptz NOT NULL DEFAULT now(),
  activated_at      timestamptz,
  retired_at        timestamptz,
  PRIMARY KEY (alias, version)
);
CREATE UNIQUE INDEX kms_symmetric_keys_one_active ON kms_symmetric_keys (alias) WHERE state = 'active';
