import type { Sql } from '@tessera/platform';
import type { ListType } from '../domain/list-definition.js';

/** SQL of status_list_publications: the last signed form of each list, shared by the replicas. */
export interface StoredPublication {
  listId: string;
  version: string;
  token: string;
  etag: string;
  signedAt: Date;
  refreshAt: Date;
  expiresAt: Date;
}

export interface PublicationHead {
  listId: string;
  type: ListType;
  ttlSeconds: number;
  /** The list's current version. */
  version: string;
  /** What the stored publication signed, if any. */
  published: { version: string; etag: string; refreshAt: Date } | null;
}

/**
 * The heads of several lists in one statement (concurrent reads of a tenant share it: list-publisher.ts); lists that
 * do not exist are absent from the map.
 */
export async function publicationHeads(sql: Sql, listIds: readonly string[]): Promise<Map<string, PublicationHead>> {
  const rows = await sql.query<{
    list_id: string;
    type: ListType;
    ttl_seconds: number;
    version: string;
    pub_version: string | null;
    etag: string | null;
    refresh_at: Date | string | null;
  }>(
    `SELECT l.list_id, l.type, l.ttl_seconds, l.version::text AS version, p.version::text AS pub_version, p.etag,
            p.refresh_at
       FROM status_lists l
       LEFT JOIN status_list_publications p ON p.tenant_id = l.tenant_id AND p.list_id = l.list_id
      WHERE l.list_id = ANY($1::text[])`,
    [listIds],
  );
  return new Map(
    rows.rows.map((r) => [
      r.list_id,
      {
        listId: r.list_id,
        type: r.type,
        ttlSeconds: Number(r.ttl_seconds),
        version: String(r.version),
        published:
          r.pub_version === null
            ? null
            : { version: String(r.pub_version), etag: r.etag!, refreshAt: new Date(r.refresh_at!) },
      },
    ]),
  );
}

export async function getPublication(sql: Sql, listId: string): Promise<StoredPublication | null> {
  const rows = await sql.query<{
    list_id: string;
    version: string;
    token: string;
    etag: string;
    signed_at: Date | string;
    refresh_at: Date | string;
    expires_at: Date | string;
  }>(
    `SELECT list_id, version::text AS version, token, etag, signed_at, refresh_at, expires_at
       FROM status_list_publications WHERE list_id = $1`,
    [listId],
  );
  const r = rows.rows[0];
  if (!r) return null;
  return {
    listId: r.list_id,
    version: String(r.version),
    token: r.token,
    etag: r.etag,
    signedAt: new Date(r.signed_at),
    refreshAt: new Date(r.refresh_at),
    expiresAt: new Date(r.expires_at),
  };
}

/** Stores a signed form unless a newer version is stored already (another replica signed meanwhile). */
export async function putPublication(sql: Sql, p: StoredPublication): Promise<void> {
  await sql.query(
    `INSERT INTO status_list_publications (list_id, version, token, etag, signed_at, refresh_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (tenant_id, list_id) DO UPDATE
       SET version = EXCLUDED.version, token = EXCLUDED.token, etag = EXCLUDED.etag, signed_at = EXCLUDED.signed_at,
           refresh_at = EXCLUDED.refresh_at, expires_at = EXCLUDED.expires_at
     WHERE status_list_publications.version <= EXCLUDED.version`,
    [p.listId, p.version, p.token, p.etag, p.signedAt, p.refreshAt, p.expiresAt],
  );
}
