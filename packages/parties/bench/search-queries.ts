import { familyName } from './seed-persons.js';

/** The searches of party-person-search: each request the next family name (about 125 matches among a million). */
export const SEARCH_NAMES: readonly string[] = Array.from({ length: 1000 }, (_, i) => familyName((i * 37) % 8000));

export const searchPath = (name: string) => `/api/party/v1/persons?q=${encodeURIComponent(name)}&limit=20`;

/** What each search server writes to BENCH_DATA_DIR/search.json for the load generator. */
export interface SearchHandover {
  /** A bearer token for the API server; none for the driver's. */
  token: string | null;
  paths: string[];
}
