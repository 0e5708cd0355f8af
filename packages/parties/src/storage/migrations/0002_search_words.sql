-- Free-text q under row-level security (issue 20 §3). The GIN index of 0001 on to_tsvector('simple', search_text)
-- cannot serve the runtime role: with a row-level security policy on the table, PostgreSQL uses a condition of the
-- query as an index condition only when its operator is LEAKPROOF, and the text search match (ts_match_vq) is not
-- (marking it so needs a superuser). Text comparison is: each folded word of a party's names is a row here, and a
-- query word is found as a range of the btree ("mul" <= word < "mum", byte order), which the planner may use ahead
-- of the tenant policy. The full match of every query word is then checked on the candidates with to_tsquery.
DROP INDEX parties_search;

CREATE TABLE party_search_words (
  tenant_id  text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  word       text COLLATE "C" NOT NULL,
  party_id   uuid NOT NULL,
  PRIMARY KEY (tenant_id, word, party_id),
  FOREIGN KEY (tenant_id, party_id) REFERENCES parties (tenant_id, id)
);
SELECT tessera_tenant_table('party_search_words');
CREATE INDEX party_search_words_party ON party_search_words (tenant_id, party_id);

INSERT INTO party_search_words (tenant_id, word, party_id)
SELECT DISTINCT p.tenant_id, w, p.id
  FROM parties p, unnest(string_to_array(p.search_text, ' ')) AS w
 WHERE p.deleted_at IS NULL AND w <> '';
