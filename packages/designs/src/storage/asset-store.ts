import type { Sql } from '@tessera/platform';
import type { AssetType } from '../domain/enums.js';

/** SQL of design_assets: the reference of an asset; its bytes are in the blob store under `blobKey`. */
export interface AssetRow {
  designId: string;
  locale: string;
  assetType: AssetType;
  contentType: string;
  size: number;
  sha256: string;
  blobKey: string;
}

interface Row {
  design_id: string;
  locale: string;
  asset_type: AssetType;
  content_type: string;
  size: number;
  sha256: string;
  blob_key: string;
}

const toAsset = (r: Row): AssetRow => ({
  designId: r.design_id,
  locale: r.locale,
  assetType: r.asset_type,
  contentType: r.content_type,
  size: r.size,
  sha256: r.sha256,
  blobKey: r.blob_key,
});

export const assetStore = {
  async put(sql: Sql, a: AssetRow, now: Date): Promise<void> {
    await sql.query(
      `INSERT INTO design_assets (design_id, locale, asset_type, content_type, size, sha256, blob_key, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (tenant_id, design_id, locale, asset_type)
       DO UPDATE SET content_type = EXCLUDED.content_type, size = EXCLUDED.size, sha256 = EXCLUDED.sha256,
                     blob_key = EXCLUDED.blob_key, created_at = EXCLUDED.created_at`,
      [a.designId, a.locale, a.assetType, a.contentType, a.size, a.sha256, a.blobKey, now],
    );
  },

  /** The assets of one type of a design, for a locale lookup. */
  async ofType(sql: Sql, designId: string, assetType: AssetType): Promise<AssetRow[]> {
    const rows = await sql.query<Row>(
      `SELECT * FROM design_assets WHERE design_id = $1 AND asset_type = $2 ORDER BY locale`,
      [designId, assetType],
    );
    return rows.rows.map(toAsset);
  },
};
