-- OpenID4VCI 1.0 grants that the token service honours for the credential issuer (issue 19 item 2):
-- a pre-authorized code (§4.1.1, redeemed at /token with grant_type urn:ietf:params:oauth:grant-type:pre-authorized_code)
-- or an issuer_state (§5.1.3, presented at /authorize), each bound to one issuance session (its correlation id) and
-- to the credential configurations it may be used for. The code and the issuer_state are stored as SHA-256 hashes;
-- the transaction code (PIN) as an HMAC under the key manager's key token-service:<tenant>:tx-code, bound to the
-- code, so that the table alone does not reveal a PIN (a 4–8 digit PIN falls to a plain hash at once).
CREATE TABLE oauth_credential_grants (
  tenant_id                     text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  code_hash                     text NOT NULL,
  kind                          text NOT NULL CHECK (kind IN ('pre-authorized_code', 'issuer_state')),
  correlation_id                text NOT NULL,
  credential_configuration_ids  text[] NOT NULL,
  tx_code_mac                   text,
  tx_code_failures              integer NOT NULL DEFAULT 0,
  -- Set when the wrong tx_code was given too often: the code can no longer be redeemed.
  locked_at                     timestamptz,
  created_at                    timestamptz NOT NULL,
  expires_at                    timestamptz NOT NULL,
  -- Single use: set by the one redemption that wins; a later presentation is refused (and recorded).
  redeemed_at                   timestamptz,
  replayed_at                   timestamptz,
  -- The jti of the access token the redemption issued (what a replay names in the audit).
  access_token_jti              text,
  PRIMARY KEY (tenant_id, code_hash)
);
CREATE INDEX oauth_credential_grants_session ON oauth_credential_grants (tenant_id, correlation_id);
SELECT tessera_tenant_table('oauth_credential_grants');
