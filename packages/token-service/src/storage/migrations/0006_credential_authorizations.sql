-- OpenID4VCI 1.0 authorization code flow (§5, issue 19 item 2): what an authorization request with issuer_state and
-- authorization_details (or a credential scope) authorized, carried from /authorize through the person's login
-- (login_transaction_id) to the grant its authorization code belongs to (grant_id), and to the token exchange.
-- The issuer_state itself is a row of oauth_credential_grants (kind issuer_state), used once.
CREATE TABLE oauth_credential_authorizations (
  tenant_id                     text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id                            uuid NOT NULL,
  login_transaction_id          uuid,
  grant_id                      uuid,
  issuer_state_hash             text NOT NULL,
  correlation_id                text NOT NULL,
  credential_configuration_ids  text[] NOT NULL,
  -- The jti of the access token the code exchange issued (revoked if the code is presented again).
  access_token_jti              text,
  created_at                    timestamptz NOT NULL,
  expires_at                    timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX oauth_credential_authorizations_login ON oauth_credential_authorizations (tenant_id, login_transaction_id);
CREATE UNIQUE INDEX oauth_credential_authorizations_grant ON oauth_credential_authorizations (tenant_id, grant_id);
SELECT tessera_tenant_table('oauth_credential_authorizations');
