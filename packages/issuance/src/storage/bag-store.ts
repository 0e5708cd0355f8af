import type { Sql } from '@tessera/platform';

/** One stored attribute record: its value as stored (sealed or clear JSON per the session's encryption mode). */
export interface StoredAttribute {
  id: string;
  path: string;
  value: string;
  contributorId: string;
  phase: string;
  bundleId: string | null;
  contributedAt: Date;
}

export interface StoredConnectorField {
  id: string;
  name: string;
  value: string;
  contributorId: string;
  phase: string;
  contributedAt: Date;
}

interface AttributeRow {
  id: string;
  path: string;
  value: string;
  contributor_id: string;
  phase: string;
  bundle_id: string | null;
  contributed_at: Date | string;
}

const toDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

/**
 * The SQL pieces of the two inserts, shared with the contribution's single statement (session-store.ts): rows go as
 * one JSON recordset parameter, whatever their number.
 */
export const ATTRIBUTE_COLUMNS = 'session_id, id, path, value, contributor_id, phase, bundle_id, contributed_at';
export const ATTRIBUTE_VALUES = 'a.id, a.path, a.value, a.contributor_id, a.phase, a.bundle_id, a.contributed_at';
export const ATTRIBUTE_RECORD =
  'a(id uuid, path text, value text, contributor_id text, phase text, bundle_id text, contributed_at timestamptz)';
export const FIELD_COLUMNS = 'session_id, name, id, value, contributor_id, phase, contributed_at';
export const FIELD_VALUES = 'f.name, f.id, f.value, f.contributor_id, f.phase, f.contributed_at';
export const FIELD_RECORD =
  'f(name text, id uuid, value text, contributor_id text, phase text, contributed_at timestamptz)';
/** The latest value of a connector field's name wins. */
export const FIELD_CONFLICT = `ON CONFLICT (tenant_id, session_id, name) DO UPDATE
         SET id = EXCLUDED.id, value = EXCLUDED.value, contributor_id = EXCLUDED.contributor_id,
             phase = EXCLUDED.phase, contributed_at = EXCLUDED.contributed_at`;

export const attributeRecordset = (rows: readonly StoredAttribute[]) =>
  JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      path: r.path,
      value: r.value,
      contributor_id: r.contributorId,
      phase: r.phase,
      bundle_id: r.bundleId,
      contributed_at: r.contributedAt.toISOString(),
    })),
  );

export const connectorFieldRecordset = (rows: readonly StoredConnectorField[]) =>
  JSON.stringify(
    rows.map((r) => ({
      name: r.name,
      id: r.id,
      value: r.value,
      contributor_id: r.contributorId,
      phase: r.phase,
      contributed_at: r.contributedAt.toISOString(),
    })),
  );

/** SQL of the attribute bag and the connector fields; runs in the caller's tenant unit of work. */
export const bagStore = {
  /** One row per attribute, in one statement: concurrent contributions never overwrite each other. */
  async insertAttributes(sql: Sql, sessionId: string, rows: readonly StoredAttribute[]): Promise<void> {
    if (rows.length === 0) return;
    await sql.query(
      `INSERT INTO issuance_session_attributes (${ATTRIBUTE_COLUMNS})
       SELECT $1, ${ATTRIBUTE_VALUES} FROM jsonb_to_recordset($2::jsonb) AS ${ATTRIBUTE_RECORD}`,
      [sessionId, attributeRecordset(rows)],
    );
  },

  /** The latest value of each name wins (a connector field is an input, not a history). */
  async upsertConnectorFields(sql: Sql, sessionId: string, rows: readonly StoredConnectorField[]): Promise<void> {
    if (rows.length === 0) return;
    await sql.query(
      `INSERT INTO issuance_session_connector_fields (${FIELD_COLUMNS})
       SELECT $1, ${FIELD_VALUES} FROM jsonb_to_recordset($2::jsonb) AS ${FIELD_RECORD} ${FIELD_CONFLICT}`,
      [sessionId, connectorFieldRecordset(rows)],
    );
  },

  async attributes(sql: Sql, sessionId: string): Promise<StoredAttribute[]> {
    const result = await sql.query<AttributeRow>(
      `SELECT id, path, value, contributor_id, phase, bundle_id, contributed_at FROM issuance_session_attributes
        WHERE session_id = $1 ORDER BY contributed_at, id`,
      [sessionId],
    );
    return result.rows.map((r) => ({
      id: r.id,
      path: r.path,
      value: r.value,
      contributorId: r.contributor_id,
      phase: r.phase,
      bundleId: r.bundle_id,
      contributedAt: toDate(r.contributed_at),
    }));
  },

  /**
   * The attribute paths present among `among` (completeness needs no value, and only the paths that claims
   * require): no query at all when nothing is asked.
   */
  async paths(sql: Sql, sessionId: string, among: readonly string[]): Promise<Set<string>> {
    if (among.length === 0) return new Set();
    const result = await sql.query<{ path: string }>(
      `SELECT DISTINCT path FROM issuance_session_attributes WHERE session_id = $1 AND path = ANY($2::text[])`,
      [sessionId, [...among]],
    );
    return new Set(result.rows.map((r) => r.path));
  },

  async connectorFieldNames(sql: Sql, sessionId: string): Promise<string[]> {
    const result = await sql.query<{ name: string }>(
      `SELECT name FROM issuance_session_connector_fields WHERE session_id = $1 ORDER BY name`,
      [sessionId],
    );
    return result.rows.map((r) => r.name);
  },

  /**
   * The latest stored value of each of `among` present in the bag (a later contribution of a path replaces an
   * earlier one for claims; the history stays in the bag). Only the paths asked are read.
   */
  async latestValues(sql: Sql, sessionId: string, among: readonly string[]): Promise<StoredAttribute[]> {
    if (among.length === 0) return [];
    const result = await sql.query<AttributeRow>(
      `SELECT DISTINCT ON (path) id, path, value, contributor_id, phase, bundle_id, contributed_at
         FROM issuance_session_attributes WHERE session_id = $1 AND path = ANY($2::text[])
        ORDER BY path, contributed_at DESC, id DESC`,
      [sessionId, [...among]],
    );
    return result.rows.map((r) => ({
      id: r.id,
      path: r.path,
      value: r.value,
      contributorId: r.contributor_id,
      phase: r.phase,
      bundleId: r.bundle_id,
      contributedAt: toDate(r.contributed_at),
    }));
  },

  /** The stored connector fields among `names` (sealed per the session's mode), for a connector's inputs. */
  async connectorFields(
    sql: Sql,
    sessionId: string,
    names: readonly string[],
  ): Promise<{ id: string; name: string; value: string }[]> {
    if (names.length === 0) return [];
    const result = await sql.query<{ id: string; name: string; value: string }>(
      `SELECT id, name, value FROM issuance_session_connector_fields WHERE session_id = $1 AND name = ANY($2::text[])`,
      [sessionId, [...names]],
    );
    return result.rows;
  },
};
