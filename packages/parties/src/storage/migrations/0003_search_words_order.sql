-- A search page reads only the parties it shows (issue 20, party-person-search). Each word row carries its party's
-- display name, in the primary key's leaf (INCLUDE): the candidates of a query word are sorted in display-name
-- order from the word index alone, and the parties are read one by one in that order until the page is full,
-- instead of every candidate (125 for a family name among a million persons) being read and then sorted.
-- The name is a copy, written with the words (storage/party-store.ts indexWords) whenever a party is written.
ALTER TABLE party_search_words ADD COLUMN display_name text;

UPDATE party_search_words w SET display_name = p.display_name
  FROM parties p
 WHERE p.tenant_id = w.tenant_id AND p.id = w.party_id;

ALTER TABLE party_search_words ALTER COLUMN display_name SET NOT NULL;

ALTER TABLE party_search_words
  DROP CONSTRAINT party_search_words_pkey,
  ADD CONSTRAINT party_search_words_pkey PRIMARY KEY (tenant_id, word, party_id) INCLUDE (display_name);

-- The candidates of a query word, each party once, for the search statement (storage/party-store.ts listStatement).
-- A function so that the statement's plan can be generic: planning the search under row-level security costs more
-- than running it, and with the range inline the planner, not knowing the words, expects 10,000 candidates
-- (0.5% of a range) in a generic plan and so plans every execution anew for its parameters. Here the statement
-- expects ROWS 100, and this query inside is planned once per session (a generic plan: an index range scan is the
-- only plan it has). Invoker's rights: the tenant policy applies to the words as to any statement of the role.
CREATE FUNCTION party_search_candidates(word_from text, word_to text)
  RETURNS TABLE (display_name text, party_id uuid)
  LANGUAGE plpgsql STABLE ROWS 100
  SET plan_cache_mode = force_generic_plan
AS $fn$
BEGIN
  RETURN QUERY
    SELECT DISTINCT w.display_name, w.party_id FROM party_search_words w
     WHERE w.word >= (word_from COLLATE "C") AND w.word < (word_to COLLATE "C");
END
$fn$;
