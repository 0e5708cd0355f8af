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

/** A folded word as a byte-order range [from, to): every word with this prefix lies in it. */
export interface WordRange {
  from: string;
  to: string;
}

/**
 * The search of `q`: the full-text query that every match satisfies, and the range of one word's prefix through
 * which the index finds the candidates (the longest word: likely the fewest candidates). Null when no word is left.
 */
export interface SearchPlan {
  tsQuery: string;
  probe: WordRange;
}

export function searchPlan(q: string): SearchPlan | null {
  const tsQuery = searchQuery(q);
  if (tsQuery === null) return null;
  const words = tsQuery.split(' & ').map((w) => w.slice(0, -2));
  const longest = words.reduce((a, b) => (Array.from(b).length > Array.from(a).length ? b : a));
  return { tsQuery, probe: prefixRange(longest) };
}

/** [prefix, prefix with its last code point incremented): UTF-8 byte order is code point order. */
export function prefixRange(prefix: string): WordRange {
  const points = Array.from(prefix);
  const last = points.pop()!.codePointAt(0)!;
  // U+D800–DFFF are not code points of a string's characters; skip over them.
  const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
  return { from: prefix, to: points.join('') + String.fromCodePoint(Math.min(next, 0x10ffff)) };
}

/** The distinct words of a folded search text (what party_search_words holds for a party). */
export const searchWords = (text: string): string[] => [...new Set(text.split(' ').filter((w) => w.length > 0))];

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
