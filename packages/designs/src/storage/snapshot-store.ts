import type { Sql } from '@tessera/platform';
import type { DesignKind, SourceType } from '../domain/enums.js';
import { iso } from './rows.js';

/** SQL of design_snapshots: the raw payload an import fetched and its validators (001 §3, §4.1). */
export interface Snapshot {
  id: string;
  entityType: DesignKind;
  sourceUrl: string;
  sourceType: SourceType;
  contentType: string;
  payload: Buffer;
  sha256: string;
  etag: string | null;
  lastModified: string | null;
  fetchedAt: string;
  checkedAt: string;
}

interface SnapshotRow {
  id: string;
  entity_type: DesignKind;
  source_url: string;
  source_type: SourceType;
  content_type: string;
  payload: Uint8Array;
  sha256: string;
  etag: string | null;
  last_modified: string | null;
  fetched_at: Date;
  checked_at: Date;
}

const toSnapshot = (r: SnapshotRow): Snapshot => ({
  id: r.id,
  entityType: r.entity_type,
  sourceUrl: r.source_url,
  sourceType: r.source_type,
  contentType: r.content_type,
  payload: Buffer.from(r.payload),
  sha256: r.sha256,
  etag: r.etag,
  lastModified: r.last_modified,
  fetchedAt: iso(r.fetched_at),
  checkedAt: iso(r.checked_at),
});

export const snapshotStore = {
  async insert(sql: Sql, s: Omit<Snapshot, 'fetchedAt' | 'checkedAt'>, now: Date): Promise<void> {
    await sql.query(
      `INSERT INTO design_snapshots (id, entity_type, source_url, source_type, content_type, payload, sha256, etag,
                                     last_modified, fetched_at, checked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
      [s.id, s.entityType, s.sourceUrl, s.sourceType, s.contentType, s.payload, s.sha256, s.etag, s.lastModified, now],
    );
  },

  async get(sql: Sql, id: string): Promise<Snapshot | null> {
    const rows = await sql.query<SnapshotRow>(`SELECT * FROM design_snapshots WHERE id = $1`, [id]);
    return rows.rows[0] ? toSnapshot(rows.rows[0]) : null;
  },

  /** A 304 (or an identical body): only the time of the check, and validators the source sent anew. */
  async touch(sql: Sql, id: string, v: { etag: string | null; lastModified: string | null }, now: Date) {
    await sql.query(
      `UPDATE design_snapshots SET checked_at = $2, etag = COALESCE($3, etag), last_modified = COALESCE($4, last_modified)
        WHERE id = $1`,
      [id, now, v.etag, v.lastModified],
    );
  },

  async replace(
    sql: Sql,
    id: string,
    v: { contentType: string; payload: Buffer; sha256: string; etag: string | null; lastModified: string | null },
    now: Date,
  ) {
    await sql.query(
      `UPDATE design_snapshots SET content_type = $2, payload = $3, sha256 = $4, etag = $5, last_modified = $6,
              fetched_at = $7, checked_at = $7
        WHERE id = $1`,
      [id, v.contentType, v.payload, v.sha256, v.etag, v.lastModified, now],
    );
  },
};
