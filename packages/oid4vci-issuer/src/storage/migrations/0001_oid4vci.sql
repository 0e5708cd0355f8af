-- OpenID4VCI issuer (issue 19): nonces, offers, deferred transactions and issued credentials (for notifications).
-- Every table is tenant-scoped under row-level security (tessera_tenant_table). Secrets a wallet presents back
-- (c_nonce, transaction_id, notification_id) are stored as SHA-256 hashes only.

-- c_nonce values of the nonce endpoint (OpenID4VCI 1.0 §7): single use, short-lived; a proof's nonce is consumed by
-- deleting its row, so that two requests with one nonce never both succeed, on any replica.
CREATE TABLE oid4vci_nonces (
  tenant_id   text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  nonce_hash  text NOT NULL,
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, nonce_hash)
);
SELECT tessera_tenant_table('oid4vci_nonces');
CREATE INDEX oid4vci_nonces_expiry ON oid4vci_nonces (expires_at);

-- Credential offers (§4.1), read by reference at credential_offer_uri; one per issuance session.
CREATE TABLE oid4vci_offers (
  tenant_id        text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  offer_id         text NOT NULL,
  correlation_id   text NOT NULL,
  offer            jsonb NOT NULL CHECK (jsonb_typeof(offer) = 'object'),
  client_id        text,
  created_at       timestamptz NOT NULL,
  expires_at       timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, offer_id),
  UNIQUE (tenant_id, correlation_id)
);
SELECT tessera_tenant_table('oid4vci_offers');
CREATE INDEX oid4vci_offers_expiry ON oid4vci_offers (expires_at);

-- Deferred issuance (§9): the transaction of a credential request answered 202, with the holder keys of its proofs.
CREATE TABLE oid4vci_transactions (
  tenant_id                    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  transaction_hash             text NOT NULL,
  correlation_id               text NOT NULL,
  credential_configuration_id  text NOT NULL,
  holder_keys                  jsonb NOT NULL CHECK (jsonb_typeof(holder_keys) = 'array'),
  access_token_jti             text NOT NULL,
  created_at                   timestamptz NOT NULL,
  expires_at                   timestamptz NOT NULL,
  completed_at                 timestamptz,
  PRIMARY KEY (tenant_id, transaction_hash)
);
SELECT tessera_tenant_table('oid4vci_transactions');
CREATE INDEX oid4vci_transactions_expiry ON oid4vci_transactions (expires_at);

-- Issued credentials: the notification_id (§11) of each response and the status entries the credentials carry.
CREATE TABLE oid4vci_issuances (
  tenant_id                    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  notification_hash            text NOT NULL,
  correlation_id               text NOT NULL,
  credential_configuration_id  text NOT NULL,
  status_entries               jsonb NOT NULL CHECK (jsonb_typeof(status_entries) = 'array'),
  issued_at                    timestamptz NOT NULL,
  last_event                   text,
  PRIMARY KEY (tenant_id, notification_hash)
);
SELECT tessera_tenant_table('oid4vci_issuances');
CREATE INDEX oid4vci_issuances_session ON oid4vci_issuances (tenant_id, correlation_id);

-- DPoP proof jti values seen at the credential endpoints (RFC 9449 §11.1); the key includes the holder's key
-- thumbprint and the target URI, so the table needs no tenant. The SQL store is @tessera/pkce-dpop's.
CREATE TABLE oid4vci_dpop_replay (
  jti_key     text PRIMARY KEY,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX oid4vci_dpop_replay_expires_at ON oid4vci_dpop_replay (expires_at);
