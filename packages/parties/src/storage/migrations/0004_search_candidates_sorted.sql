-- The candidates of a search come out of party_search_candidates (0003) sorted and each once by a sort, not by a
-- hash table. Its query is planned generic, for the 10,000 rows a generic plan expects of a word range, so DISTINCT
-- alone was a hash aggregate whose table, sized for those, was cleared and walked whole in every execution (more
-- database CPU than the 125 candidates of a family name). Sorted, the statement's own sort of the candidates
-- (storage/party-store.ts listStatement) finds them in order already.
CREATE OR REPLACE FUNCTION party_search_candidates(word_from text, word_to text)
  RETURNS TABLE (display_name text, party_id uuid)
  LANGUAGE plpgsql STABLE ROWS 100
  SET plan_cache_mode = force_generic_plan
AS $fn$
BEGIN
  RETURN QUERY
    SELECT DISTINCT w.display_name, w.party_id FROM party_search_words w
     WHERE w.word >= (word_from COLLATE "C") AND w.word < (word_to COLLATE "C")
     ORDER BY w.display_name, w.party_id;
END
$fn$;
