-- DPoP proof replay protection (RFC 9449 §11.1) for every endpoint of the deployment that checks proofs: the token
-- service, the external reconciliation API and the OpenID4VCI issuer. One table instead of one per context (issue 13
-- §8); each context's next migration drops its own. The key is @tessera/pkce-dpop's dpopReplayKey, SHA-256 over
-- (key thumbprint, normalised htu, jti), so a jti is unique per client key and target URI, within the tenant; the
-- row is held until the proof could no longer pass the iat check. The insert is pkce-dpop's SqlDpopReplayStore
-- with scopeColumn 'tenant_id' (platform dpop/dpop-replay-stores.ts); the purge job deletes expired rows.
CREATE TABLE dpop_replay (
  tenant_id   text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  jti_key     text NOT NULL,
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, jti_key)
);
CREATE INDEX dpop_replay_expires_at ON dpop_replay (expires_at);
SELECT tessera_tenant_table('dpop_replay');
