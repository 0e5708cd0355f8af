-- Match confirmation (issue 14 §11, README "Match confirmation"): the status that waits for the holder's choice, the
-- plan that leads there, and the candidates offered (sealed: they carry identity ids; the holder only ever sees
-- their random match ids and masked values).
ALTER TABLE bridge_sessions DROP CONSTRAINT IF EXISTS bridge_sessions_status_check;
ALTER TABLE bridge_sessions ADD CONSTRAINT bridge_sessions_status_check
  CHECK (status IN ('CREATED', 'INTERACTION_STARTED', 'VERIFYING', 'VERIFIED', 'IDV_REQUIRED',
                    'MATCH_CONFIRMATION_REQUIRED', 'COMPLETED', 'EXPIRED', 'ERROR'));
ALTER TABLE bridge_sessions DROP CONSTRAINT IF EXISTS bridge_sessions_plan_type_check;
ALTER TABLE bridge_sessions ADD CONSTRAINT bridge_sessions_plan_type_check
  CHECK (plan_type IN ('USE_EXISTING_BINDING', 'AUTO_MATCH_BY_ATTRIBUTE', 'RECONCILE_VIA_IDV', 'CONFIRM_ATTRIBUTE_MATCH'));
ALTER TABLE bridge_sessions ADD COLUMN match_candidates_sealed text;
