-- Responses that failed verification while the session stayed open for a valid one (README "Rejected responses"):
-- each one's check, reason and time, never what was posted.
ALTER TABLE bridge_sessions ADD COLUMN rejected_responses jsonb NOT NULL DEFAULT '[]';
