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
