/**
 * Free-text search over party names (issue 20 §3). PostgreSQL's `unaccent` and `pg_trgm` are extensions that the
 * embedded engine does not load, so accents are folded here instead, the same way for the stored text and for the
 * query, and the database indexes `to_tsvector('simple', search_text)` (GIN): the same SQL on both engines.
 */

const MAX_QUERY_WORDS = 8;
const MAX_WORD_LENGTH = 64;

/** Lower case, accents removed (NFKD, combining marks dropped), every run of non-letters/digits one space. */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The searchable text of a party: its names, folded. */
export function searchText(names: readonly unknown[]): string {
  return fold(names.filter((n): n is string => typeof n === 'string' && n.length > 0).join(' '));
}

/**
 * A `to_tsquery('simple', ...)` text for `q`: each folded word as a prefix (`word:*`), all of them required. Words
 * are letters and digits only, so no query syntax of the caller reaches the parser. Null when nothing is left.
 */
export function searchQuery(q: string): string | null {
  const words = fold(q)
    .split(' ')
    .filter((w) => w.length > 0)
    .slice(0, MAX_QUERY_WORDS)
    .map((w) => `${w.slice(0, MAX_WORD_LENGTH)}:*`);
  return words.length === 0 ? null : words.join(' & ');
}
