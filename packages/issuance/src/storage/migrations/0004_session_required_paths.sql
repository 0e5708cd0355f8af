-- The attribute paths that the session's pipeline requires (a claim's attributePath with required) and that its bag
-- holds, sorted; written with the session row by every contribution that adds one (issue 18). A contribution then
-- decides completeness from the session row it locks, and can check under that lock, in the one statement that
-- writes its rows, that what it decided from is still current (storage/session-store.ts, contributeIfCurrent).
-- NULL: not known yet (a session begun before this column); the next contribution reads the bag and fills it.
ALTER TABLE issuance_sessions ADD COLUMN present_required_paths text[];
