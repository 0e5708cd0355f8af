-- Token service state (000 §3.3, §4.4): login transactions, authorization codes, grants (token families),
-- refresh tokens and revoked access tokens. Everything a replica needs lives here, so that a flow started on one
-- replica completes on another and survives a restart. Codes and refresh tokens are stored as SHA-256 hashes.

-- A login in progress: the relying party's authorization request, while the user logs in upstream or with a wallet.
CREATE TABLE oauth_login_transactions (
  tenant_id              text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id                     uuid NOT NULL,
  client_id              text NOT NULL,
  redirect_uri           text NOT NULL,
  scope                  text NOT NULL,
  state                  text,
  nonce                  text,
  code_challenge         text NOT NULL,
  code_challenge_method  text NOT NULL,
  dpop_jkt               text,
  -- Upstream (federated) login: our state, nonce and PKCE verifier at the institutional provider.
  upstream_state_hash    text UNIQUE,
  upstream_nonce         text,
  upstream_code_verifier text,
  created_at             timestamptz NOT NULL,
  expires_at             timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
SELECT tessera_tenant_table('oauth_login_transactions');

-- A grant: what one authentication allowed one client to do. Every token issued from one authorization code
-- belongs to its grant (the "token family"); revoking the grant makes all of them inactive.
CREATE TABLE oauth_grants (
  tenant_id      text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id             uuid NOT NULL,
  client_id      text NOT NULL,
  subject        text,
  scope          text NOT NULL,
  acr            text,
  amr            text[] NOT NULL DEFAULT '{}',
  auth_time      timestamptz,
  claims         jsonb NOT NULL DEFAULT '{}',
  dpop_jkt       text,
  created_at     timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL,
  revoked_at     timestamptz,
  revoked_reason text,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX oauth_grants_subject ON oauth_grants (tenant_id, subject);
SELECT tessera_tenant_table('oauth_grants');

CREATE TABLE oauth_authorization_codes (
  tenant_id              text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  code_hash              text NOT NULL,
  grant_id               uuid NOT NULL,
  client_id              text NOT NULL,
  redirect_uri           text NOT NULL,
  nonce                  text,
  code_challenge         text NOT NULL,
  code_challenge_method  text NOT NULL,
  created_at             timestamptz NOT NULL,
  expires_at             timestamptz NOT NULL,
  consumed_at            timestamptz,
  PRIMARY KEY (tenant_id, code_hash)
);
SELECT tessera_tenant_table('oauth_authorization_codes');

CREATE TABLE oauth_refresh_tokens (
  tenant_id     text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  token_hash    text NOT NULL,
  grant_id      uuid NOT NULL,
  client_id     text NOT NULL,
  scope         text NOT NULL,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  -- Set when the token is exchanged for a new one: a later use is a reuse (000 §3.3).
  rotated_at    timestamptz,
  PRIMARY KEY (tenant_id, token_hash)
);
CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (tenant_id, grant_id);
SELECT tessera_tenant_table('oauth_refresh_tokens');

-- Access tokens are self-contained JWTs; only individually revoked ones are recorded, until they expire.
CREATE TABLE oauth_revoked_access_tokens (
  tenant_id   text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  jti         text NOT NULL,
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, jti)
);
SELECT tessera_tenant_table('oauth_revoked_access_tokens');
