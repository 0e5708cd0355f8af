-- The token service's DPoP proofs are remembered in the platform's one `dpop_replay` table (platform migration 0006,
-- issue 13 §8); this context's own table goes. Its rows are proofs of at most a few minutes ago, so nothing that
-- matters is lost.
DROP TABLE IF EXISTS oauth_dpop_replay;
