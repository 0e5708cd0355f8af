import type { Sql } from '@tessera/platform';

/**
 * Where asset bytes live. The unit of work is handed in so that the PostgreSQL store writes in the same
 * transaction as the asset record; an S3-compatible store ignores `sql` and keys its objects by tenant and key.
 */
export interface BlobUnit {
  tenantId: string;
  sql: Sql;
}

export interface BlobStore {
  put(unit: BlobUnit, key: string, bytes: Buffer): Promise<void>;
  get(unit: BlobUnit, key: string): Promise<Buffer | null>;
  deletePrefix(unit: BlobUnit, prefix: string): Promise<void>;
}

/** Blobs as bytea in `design_blobs`, tenant-scoped by row-level security like every other table. */
export const postgresBlobStore: BlobStore = {
  async put({ sql }, key, bytes) {
    await sql.query(
      `INSERT INTO design_blobs (blob_key, bytes) VALUES ($1, $2)
       ON CONFLICT (tenant_id, blob_key) DO UPDATE SET bytes = EXCLUDED.bytes`,
      [key, bytes],
    );
  },
  async get({ sql }, key) {
    const rows = await sql.query<{ bytes: Uint8Array }>(`SELECT bytes FROM design_blobs WHERE blob_key = $1`, [key]);
    const bytes = rows.rows[0]?.bytes;
    return bytes === undefined ? null : Buffer.from(bytes);
  },
  async deletePrefix({ sql }, prefix) {
    await sql.query(`DELETE FROM design_blobs WHERE starts_with(blob_key, $1)`, [prefix]);
  },
};
