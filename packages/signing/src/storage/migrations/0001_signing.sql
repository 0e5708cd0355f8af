-- Document-signing context (002 §2.1, §4.1). Tenant-scoped: row-level security through tessera_tenant_table.

-- Private keys of the software key provider: PKCS #8 DER sealed by envelope encryption under the tenant's
-- key-encryption key (`signing:<tenant>:dek`), bound to tenant and provider kid. Public key in the clear (SPKI DER,
-- base64) so that a certificate can be matched to its key without opening it.
CREATE TABLE signing_software_keys (
  tenant_id           text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  provider_kid        text NOT NULL,
  key_type            text NOT NULL,
  public_key_spki     text NOT NULL,
  spki_sha256         text NOT NULL,
  sealed_private_key  text NOT NULL,
  created_at          timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, provider_kid)
);
SELECT tessera_tenant_table('signing_software_keys');
CREATE INDEX signing_software_keys_spki ON signing_software_keys (tenant_id, spki_sha256);

-- Key entries (002 §2.1 KeyEntry, AccessRestrictions): an X.509 certificate imported under a provider (operation
-- 5), or a key entry linked to a provider key (operation 6), or both.
CREATE TABLE signing_key_entries (
  tenant_id          text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  kid                text NOT NULL,
  provider_id        text NOT NULL,
  provider_kid       text,
  key_kind           text NOT NULL CHECK (key_kind IN ('RSA', 'EC', 'DSA')),
  public_key_spki    text NOT NULL,
  certificate        text,
  certificate_chain  jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(certificate_chain) = 'array'),
  access_level       text NOT NULL,
  role_restrictions  jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(role_restrictions) = 'array'),
  subject_id         text NOT NULL,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, kid)
);
SELECT tessera_tenant_table('signing_key_entries');
