-- Issue 13 §4: the person's claims of a grant and the upstream PKCE verifier of a login in progress are sealed at
-- rest (envelope encryption through the key manager, bound to tenant, row and column), like the bridge's session
-- secrets and the identity store's claims. New rows are written sealed only; rows written before this migration
-- are sealed by the job token-service.personal-data.seal, which then empties their plaintext columns.
ALTER TABLE oauth_grants ADD COLUMN sealed_claims text;
ALTER TABLE oauth_login_transactions ADD COLUMN sealed_upstream_code_verifier text;
