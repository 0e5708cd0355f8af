import type { Sql } from '@tessera/platform';
import type { PageRequest } from '../domain/pagination.js';
import { relationshipJson } from './views.js';

export interface RelationshipRow {
  id: string;
  fromPartyId: string;
  toPartyId: string;
  relationshipType: string;
  validFrom: string | null;
  validTo: string | null;
}

interface StoredRow {
  id: string;
  from_party_id: string;
  to_party_id: string;
  relationship_type: string;
  valid_from: Date | string | null;
  valid_to: Date | string | null;
}

const iso = (v: Date | string | null) => (v === null ? null : (v instanceof Date ? v : new Date(v)).toISOString());

/** SQL of relationships and the tenant's relationship types (001 §2.5). Runs in the caller's tenant unit of work. */
export const relationshipStore = {
  /**
   * Serialises writes of relationships between the same two parties until the transaction ends, so that the overlap
   * check holds against a concurrent write.
   */
  async lockPair(sql: Sql, fromPartyId: string, toPartyId: string): Promise<void> {
    await sql.query(
      `SELECT pg_advisory_xact_lock(hashtext('party-relationships:' || current_setting('app.tenant_id') || ':' || $1 || ':' || $2))`,
      [fromPartyId, toPartyId],
    );
  },

  /** A live relationship of the same parties and type whose window overlaps (null ends are open). */
  async overlapping(sql: Sql, row: RelationshipRow): Promise<string | null> {
    const result = await sql.query<{ id: string }>(
      `SELECT id FROM party_relationships
        WHERE from_party_id = $1 AND to_party_id = $2 AND relationship_type = $3 AND deleted_at IS NULL AND id <> $4
          AND tstzrange(valid_from, valid_to) && tstzrange($5::timestamptz, $6::timestamptz)
        LIMIT 1`,
      [row.fromPartyId, row.toPartyId, row.relationshipType, row.id, row.validFrom, row.validTo],
    );
    return result.rows[0]?.id ?? null;
  },

  async insert(sql: Sql, row: RelationshipRow, now: Date): Promise<unknown> {
    const result = await sql.query<{ view: unknown }>(
      `INSERT INTO party_relationships AS x (id, from_party_id, to_party_id, relationship_type, valid_from, valid_to,
         created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING ${relationshipJson('x')} AS view`,
      [row.id, row.fromPartyId, row.toPartyId, row.relationshipType, row.validFrom, row.validTo, now],
    );
    return result.rows[0]!.view;
  },

  async update(sql: Sql, row: RelationshipRow, now: Date): Promise<unknown> {
    const result = await sql.query<{ view: unknown }>(
      `UPDATE party_relationships AS x SET from_party_id = $2, to_party_id = $3, relationship_type = $4,
         valid_from = $5, valid_to = $6, updated_at = $7
        WHERE x.id = $1 AND x.deleted_at IS NULL RETURNING ${relationshipJson('x')} AS view`,
      [row.id, row.fromPartyId, row.toPartyId, row.relationshipType, row.validFrom, row.validTo, now],
    );
    return result.rows[0]!.view;
  },

  /** A live relationship as stored (for updates), locked. */
  async lock(sql: Sql, id: string): Promise<RelationshipRow | null> {
    const result = await sql.query<StoredRow>(
      `SELECT id, from_party_id, to_party_id, relationship_type, valid_from, valid_to FROM party_relationships
        WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`,
      [id],
    );
    const r = result.rows[0];
    return r
      ? {
          id: r.id,
          fromPartyId: r.from_party_id,
          toPartyId: r.to_party_id,
          relationshipType: r.relationship_type,
          validFrom: iso(r.valid_from),
          validTo: iso(r.valid_to),
        }
      : null;
  },

  async get(sql: Sql, id: string): Promise<unknown> {
    const result = await sql.query<{ view: unknown }>(
      `SELECT ${relationshipJson('x')} AS view FROM party_relationships x WHERE x.id = $1 AND x.deleted_at IS NULL`,
      [id],
    );
    return result.rows[0]?.view ?? null;
  },

  async softDelete(sql: Sql, id: string, now: Date): Promise<boolean> {
    const result = await sql.query(
      `UPDATE party_relationships SET deleted_at = $2, updated_at = $2 WHERE id = $1 AND deleted_at IS NULL`,
      [id, now],
    );
    return result.rowCount === 1;
  },

  /**
   * A page of live relationships, optionally of one party (either end) or one type. With `partyId`, a party that is
   * not live answers null (one statement either way).
   */
  async list(
    sql: Sql,
    filter: { partyId?: string | undefined; relationshipType?: string | undefined },
    page: PageRequest,
  ): Promise<{ views: unknown[]; hasMore: boolean } | null> {
    const params: unknown[] = [page.limit + 1, page.offset];
    const conditions = ['x.deleted_at IS NULL'];
    if (filter.relationshipType) conditions.push(`x.relationship_type = $${params.push(filter.relationshipType)}`);
    let party = '';
    if (filter.partyId) {
      const p = `$${params.push(filter.partyId)}`;
      conditions.push(`(x.from_party_id = ${p} OR x.to_party_id = ${p})`);
      party = `, (SELECT count(*) FROM parties p WHERE p.id = ${p} AND p.deleted_at IS NULL) AS party_live`;
    }
    const result = await sql.query<{ view: unknown; party_live?: string | number }>(
      `SELECT page.view${party} FROM (SELECT 1) AS one LEFT JOIN LATERAL (
         SELECT ${relationshipJson('x')} AS view, x.created_at, x.id FROM party_relationships x
          WHERE ${conditions.join(' AND ')} ORDER BY x.created_at, x.id LIMIT $1 OFFSET $2
       ) AS page ON true ORDER BY page.created_at, page.id`,
      params,
    );
    if (filter.partyId && Number(result.rows[0]?.party_live ?? 0) === 0) return null;
    const views = result.rows.filter((r) => r.view !== null).map((r) => r.view);
    return { views: views.slice(0, page.limit), hasMore: views.length > page.limit };
  },

  async typeRegistered(sql: Sql, code: string): Promise<boolean> {
    const result = await sql.query(`SELECT 1 FROM party_relationship_types WHERE code = $1`, [code]);
    return result.rowCount > 0;
  },

  async registeredTypes(sql: Sql): Promise<{ code: string; description: string | null }[]> {
    const result = await sql.query<{ code: string; description: string | null }>(
      `SELECT code, description FROM party_relationship_types ORDER BY code`,
    );
    return result.rows;
  },

  async registerType(sql: Sql, code: string, description: string | null, now: Date): Promise<void> {
    await sql.query(`INSERT INTO party_relationship_types (code, description, created_at) VALUES ($1, $2, $3)`, [
      code,
      description,
      now,
    ]);
  },
};
