-- DPoP proof replay protection (RFC 9449 §11.1): the jti of every accepted proof, held until the proof could no
-- longer pass the iat check. The key is SHA-256 over (key thumbprint, htu, jti), computed by @tessera/pkce-dpop's
-- dpopReplayKey; the insert is its SqlDpopReplayStore's. Not tenant-scoped: the key already contains the client
-- key's thumbprint and the endpoint URL, so tenants cannot collide, and one table serves every replica.
-- The statements are exactly createDpopReplayTableSql('oauth_dpop_replay') (test/dpop/replay-store.test.ts).
CREATE TABLE IF NOT EXISTS "oauth_dpop_replay" (
  jti_key text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS "oauth_dpop_replay_expires_at" ON "oauth_dpop_replay" (expires_at);
