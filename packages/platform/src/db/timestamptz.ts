import pg from 'pg';

const TIMESTAMPTZ_OID = 1184;

/** pg's own parser of `timestamptz` (postgres-date), read when this module loads, before installTimestamptzParser. */
export const pgTimestamptzParser: (text: string) => unknown = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text');

/**
 * `timestamptz` values as pg hands them over (text, DateStyle ISO), parsed to a Date.
 *
 * The form PostgreSQL writes for a UTC session, `YYYY-MM-DD HH:MM:SS[.ffffff]+00`, is read here field by field; any
 * other form (another zone, BC years, years before 1000, infinity) goes to pg's own parser (postgres-date), whose
 * answers this one gives exactly for the forms it reads. pg's parser matches three regular expressions and splits the text
 * on every value; a refresh reads half a dozen of them per request (docs/decisions.md).
 */
export function parseTimestamptz(text: string): unknown {
  const n = text.length;
  // 'YYYY-MM-DD HH:MM:SS+00' is 22 characters; a fraction of 1 to 6 digits adds its point.
  if (
    n >= 22 &&
    n <= 29 &&
    n !== 23 &&
    text.charCodeAt(4) === 45 && // '-'
    text.charCodeAt(7) === 45 &&
    text.charCodeAt(10) === 32 && // ' '
    text.charCodeAt(13) === 58 && // ':'
    text.charCodeAt(16) === 58 &&
    text.charCodeAt(n - 3) === 43 && // '+00'
    text.charCodeAt(n - 2) === 48 &&
    text.charCodeAt(n - 1) === 48 &&
    (n === 22 || text.charCodeAt(19) === 46) // '.'
  ) {
    const year = digits(text, 0, 4);
    const month = digits(text, 5, 7);
    const day = digits(text, 8, 10);
    const hour = digits(text, 11, 13);
    const minute = digits(text, 14, 16);
    const second = digits(text, 17, 19);
    // The fraction in ms as postgres-date computes it (1000 × the fraction); Date.UTC drops what is below 1 ms.
    const fraction = n === 22 ? 0 : digits(text, 20, n - 3);
    if (year >= 1000 && month >= 0 && day >= 0 && hour >= 0 && minute >= 0 && second >= 0 && fraction >= 0) {
      const ms = n === 22 ? 0 : (1000 * fraction) / 10 ** (n - 23);
      return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
    }
  }
  return pgTimestamptzParser(text);
}

/** Makes parseTimestamptz pg's parser of `timestamptz` for every connection of the process. */
export function installTimestamptzParser(): void {
  pg.types.setTypeParser(TIMESTAMPTZ_OID, parseTimestamptz);
}

/** The decimal number written in text[from, to), or -1 when a character is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}
