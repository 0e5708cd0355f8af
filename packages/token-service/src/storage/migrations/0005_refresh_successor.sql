-- The refresh reuse grace window (issue 13 §7, refreshTokenReuseGraceSeconds): a rotated token names its successor,
-- so that presenting the rotated token again within the window (the retry of a request whose answer was lost)
-- replaces that successor while it is unused, rather than forking the family with a second live successor.
ALTER TABLE oauth_refresh_tokens ADD COLUMN replaced_by text;
