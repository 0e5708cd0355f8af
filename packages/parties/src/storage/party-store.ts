import { createHash } from 'node:crypto';
import type { Sql } from '@tessera/platform';
import type { PartyType } from '../domain/party-kinds.js';
import type { PartyColumns, PartyRecord } from '../domain/party-record.js';
import type { PageRequest } from '../domain/pagination.js';
import { searchWords, type SearchPlan } from '../domain/search-text.js';
import { PARTY_COLUMNS, toRecord, type PartyRow } from './party-rows.js';
import { INCLUDE_SQL, type LoadableInclude } from './views.js';

/**
 * SQL of the `parties` table. Every function runs inside the caller's tenant unit of work (db.withTenant or
 * withTenantSession): row-level security scopes each statement to the tenant, and `tenant_id` defaults to it.
 * Deleted parties (deleted_at set) are invisible to every read here.
 */

export interface PartyFilter {
  type?: PartyType | undefined;
  subtype?: string | undefined;
  organizationUnitId?: string | undefined;
  origin?: string | undefined;
  /** Exact (case-insensitive) match of the display name. */
  displayName?: string | undefined;
  /** Exact (case-insensitive) match of any name part of a person. */
  name?: string | undefined;
  /** Free-text q, planned (domain/search-text.ts). */
  search?: SearchPlan | undefined;
}

export interface PartyPage {
  records: PartyRecord[];
  hasMore: boolean;
  total: number | undefined;
}

export type LoadedIncludes = Partial<Record<LoadableInclude, unknown>>;

function where(filter: PartyFilter, params: unknown[]): string {
  const conditions = ['p.deleted_at IS NULL'];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (filter.type) conditions.push(`p.party_type = ${param(filter.type)}`);
  if (filter.subtype) conditions.push(`p.party_subtype = ${param(filter.subtype)}`);
  if (filter.organizationUnitId) conditions.push(`p.organization_unit_id = ${param(filter.organizationUnitId)}`);
  if (filter.origin) conditions.push(`p.origin = ${param(filter.origin)}`);
  if (filter.displayName) conditions.push(`lower(p.display_name) = lower(${param(filter.displayName)})`);
  if (filter.name) {
    const n = param(filter.name);
    conditions.push(`lower(${n}) IN (lower(p.attributes ->> 'givenName'), lower(p.attributes ->> 'middleName'),
      lower(p.attributes ->> 'familyName'))`);
  }
  // Every word of q, checked on the candidates the word index gave (searchCandidates). The query is parsed once
  // (a subquery), not per candidate: in a generic plan to_tsquery of a parameter would run for each row, and the
  // plan would cost more than a custom one, which the plan cache then keeps choosing (listStatement).
  if (filter.search)
    conditions.push(
      `to_tsvector('simple', p.search_text) @@ (SELECT to_tsquery('simple', ${param(filter.search.tsQuery)}))`,
    );
  return conditions.join(' AND ');
}

/**
 * The rows a search starts from: each party with a word in the probe's prefix range, once, with the copy of its
 * display name that the word rows carry, in display-name order, through the word index under row-level security
 * (range conditions the planner may use ahead of the tenant policy: migrations/0002; the function: 0003).
 */
function searchCandidates(search: SearchPlan, params: unknown[]): string {
  const param = (value: unknown) => `$${params.push(value)}`;
  return `(SELECT * FROM party_search_candidates(${param(search.probe.from)}, ${param(search.probe.to)})
            ORDER BY display_name, party_id) c
          JOIN parties p ON p.id = c.party_id`;
}

/**
 * The statement of a list page (exported for the benchmark, which runs the very same statement through the driver):
 * live parties matching the filter in display-name order, one row more than the page to tell whether more follow;
 * with `withTotal` the matches are counted in the same statement.
 *
 * A search orders by the candidates' display names (c.display_name, equal to p.display_name: written together),
 * so the planner sorts the candidates from the word index alone and reads parties in that order only until the
 * page is full (a nested loop under the limit): 21 parties read for a page of 20, not every candidate.
 */
export function listStatement(
  filter: PartyFilter,
  page: PageRequest,
): { text: string; params: unknown[]; name: string } {
  const params: unknown[] = [];
  const from = filter.search ? searchCandidates(filter.search, params) : 'parties p';
  const order = filter.search ? 'c.display_name, c.party_id' : 'p.display_name, p.id';
  const conditions = where(filter, params);
  const limit = `$${params.push(page.limit + 1)}`;
  // No OFFSET on a first page: with a parameter there, a generic plan expects to skip rows before the first one.
  const offset = page.offset > 0 ? ` OFFSET $${params.push(page.offset)}` : '';
  const text = page.withTotal
    ? `WITH matched AS (SELECT ${PARTY_COLUMNS} FROM ${from} WHERE ${conditions}),
            counted AS (SELECT count(*)::int AS total FROM matched),
            paged AS (SELECT * FROM matched ORDER BY display_name, id LIMIT ${limit}${offset})
       SELECT counted.total, paged.* FROM counted LEFT JOIN paged ON true ORDER BY paged.display_name, paged.id`
    : `SELECT ${PARTY_COLUMNS} FROM ${from} WHERE ${conditions}
        ORDER BY ${order} LIMIT ${limit}${offset}`;
  // Planning the search under row-level security costs more than running it (0.5 ms against 0.3 ms for a family
  // name among a million persons): each shape of the statement (a few hundred at most: which filters are present,
  // first page or not) is prepared once per connection, and its plan turns generic after five executions when
  // its estimate is no worse (migrations/0003). The name follows from the text.
  return { text, params, name: statementName(text) };
}

/** The prepared names of the statement shapes seen (a few hundred at most, see above), so a list hashes no text. */
const statementNames = new Map<string, string>();
const MAX_STATEMENT_NAMES = 1024;

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `party.list.${createHash('sha256').update(text).digest('base64url').slice(0, 16)}`;
    // A bound that the shapes never reach; past it the map starts over rather than growing.
    if (statementNames.size >= MAX_STATEMENT_NAMES) statementNames.clear();
    statementNames.set(text, name);
  }
  return name;
}

export const partyStore = {
  async insert(sql: Sql, id: string, columns: PartyColumns, now: Date): Promise<PartyRecord> {
    const result = await sql.query<PartyRow>(
      `INSERT INTO parties AS p (id, party_type, party_subtype, display_name, origin, organization_unit_id, attributes,
         search_text, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
       RETURNING ${PARTY_COLUMNS}`,
      [
        id,
        columns.type,
        columns.subtype,
        columns.displayName,
        columns.origin,
        columns.organizationUnitId,
        JSON.stringify(columns.attributes),
        columns.searchText,
        now,
      ],
    );
    await partyStore.indexWords(sql, id, columns);
    return toRecord(result.rows[0]!);
  },

  /**
   * Replaces the searchable words of a party (migrations/0002), each with the party's display name (0003); none
   * for a deleted party. Every write of a party's names or display name calls it in the same unit of work.
   */
  async indexWords(sql: Sql, id: string, columns: Pick<PartyColumns, 'searchText' | 'displayName'> | null) {
    await sql.query(`DELETE FROM party_search_words WHERE party_id = $1`, [id]);
    const words = columns === null ? [] : searchWords(columns.searchText);
    if (columns !== null && words.length > 0)
      await sql.query(
        `INSERT INTO party_search_words (word, party_id, display_name)
         SELECT w, $1, $3 FROM unnest($2::text[]) AS w ON CONFLICT DO NOTHING`,
        [id, words, columns.displayName],
      );
  },

  /**
   * A live party (of the given type, when given) with the associations asked for, in one statement: each include
   * is a subquery of the same SELECT (views.ts).
   */
  async get(
    sql: Sql,
    id: string,
    type: PartyType | null,
    includes: readonly LoadableInclude[] = [],
  ): Promise<{ record: PartyRecord; included: LoadedIncludes } | null> {
    const extra = includes.map((i) => `, ${INCLUDE_SQL[i]}`).join('');
    const result = await sql.query<PartyRow & LoadedIncludes>(
      `SELECT ${PARTY_COLUMNS}${extra} FROM parties p
        WHERE p.id = $1 AND p.deleted_at IS NULL ${type ? 'AND p.party_type = $2' : ''}`,
      type ? [id, type] : [id],
    );
    const row = result.rows[0];
    if (!row) return null;
    const included: LoadedIncludes = {};
    for (const i of includes) included[i] = row[i];
    return { record: toRecord(row), included };
  },

  /** A live party locked for the rest of the transaction (updates, deletes, member changes). */
  async lock(sql: Sql, id: string, type: PartyType | null): Promise<PartyRecord | null> {
    const result = await sql.query<PartyRow>(
      `SELECT ${PARTY_COLUMNS} FROM parties p
        WHERE p.id = $1 AND p.deleted_at IS NULL ${type ? 'AND p.party_type = $2' : ''} FOR UPDATE`,
      type ? [id, type] : [id],
    );
    const row = result.rows[0];
    return row ? toRecord(row) : null;
  },

  /** The types of the live parties among `ids` (absent ids are missing from the map). */
  async liveTypes(sql: Sql, ids: readonly string[]): Promise<Map<string, PartyType>> {
    if (ids.length === 0) return new Map();
    const result = await sql.query<{ id: string; party_type: PartyType }>(
      `SELECT id, party_type FROM parties WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL`,
      [ids],
    );
    return new Map(result.rows.map((r) => [r.id, r.party_type]));
  },

  async update(sql: Sql, id: string, columns: PartyColumns, now: Date): Promise<PartyRecord> {
    const result = await sql.query<PartyRow>(
      `UPDATE parties AS p SET party_subtype = $2, display_name = $3, origin = $4, organization_unit_id = $5,
         attributes = $6, search_text = $7, updated_at = $8
        WHERE p.id = $1 AND p.deleted_at IS NULL
        RETURNING ${PARTY_COLUMNS}`,
      [
        id,
        columns.subtype,
        columns.displayName,
        columns.origin,
        columns.organizationUnitId,
        JSON.stringify(columns.attributes),
        columns.searchText,
        now,
      ],
    );
    await partyStore.indexWords(sql, id, columns);
    return toRecord(result.rows[0]!);
  },

  /** Soft delete (001 §3): the row stays, invisible to reads. Answers whether a live party was deleted. */
  async softDelete(sql: Sql, id: string, type: PartyType, now: Date): Promise<boolean> {
    const result = await sql.query(
      `UPDATE parties SET deleted_at = $3, updated_at = $3 WHERE id = $1 AND party_type = $2 AND deleted_at IS NULL`,
      [id, type, now],
    );
    if (result.rowCount === 1) await partyStore.indexWords(sql, id, null);
    return result.rowCount === 1;
  },

  /** A page of live parties matching the filter, in one statement (listStatement). */
  async list(sql: Sql, filter: PartyFilter, page: PageRequest): Promise<PartyPage> {
    const { text, params, name } = listStatement(filter, page);
    const result = await sql.query<PartyRow & { total?: number }>(text, params, { prepareAs: name });
    const rows = result.rows.filter((r) => r.id !== null);
    const total = page.withTotal ? (result.rows[0]?.total ?? 0) : undefined;
    return { records: rows.slice(0, page.limit).map(toRecord), hasMore: rows.length > page.limit, total };
  },

  /** Whether a unit still has live child units or member persons (a unit is deleted only when empty). */
  async unitInUse(sql: Sql, unitId: string): Promise<boolean> {
    const result = await sql.query(
      `SELECT 1 FROM parties WHERE organization_unit_id = $1 AND deleted_at IS NULL LIMIT 1`,
      [unitId],
    );
    return result.rowCount > 0;
  },

  /** Serialises moves of the tenant's units for the rest of the transaction. */
  async lockUnitTree(sql: Sql): Promise<void> {
    await sql.query(`SELECT pg_advisory_xact_lock(hashtext('party-unit-tree:' || current_setting('app.tenant_id')))`);
  },

  /** Whether `unitId` is `ancestorId` or lies below it (a unit's new parent must not be either). */
  async unitWithin(sql: Sql, unitId: string, ancestorId: string): Promise<boolean> {
    const result = await sql.query(
      `WITH RECURSIVE up(id, depth) AS (
         SELECT $1::uuid, 0
         UNION ALL
         SELECT p.organization_unit_id, up.depth + 1 FROM up JOIN parties p ON p.id = up.id
          WHERE p.organization_unit_id IS NOT NULL AND up.depth < 10000
       )
       SELECT 1 FROM up WHERE id = $2 LIMIT 1`,
      [unitId, ancestorId],
    );
    return result.rowCount > 0;
  },
};
