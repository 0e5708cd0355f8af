import type { Sql } from '@tessera/platform';
import type { RenderVariant, RenderVariantInput } from '../domain/records.js';
import { iso } from './rows.js';

/** SQL of design_render_variants; the variant's fields beyond design and target are one JSON document. */
interface VariantRow {
  tenant_id: string;
  id: string;
  design_id: string;
  render_target: string;
  document: Omit<RenderVariantInput, 'designId' | 'renderTarget'>;
  created_at: Date;
  updated_at: Date;
}

const toVariant = (r: VariantRow): RenderVariant =>
  ({
    id: r.id,
    tenantId: r.tenant_id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    designId: r.design_id,
    renderTarget: r.render_target,
    ...r.document,
  }) as RenderVariant;

const documentOf = (v: RenderVariantInput) => {
  const { designId: _d, renderTarget: _r, ...rest } = v;
  return JSON.stringify(rest);
};

export const variantStore = {
  async insert(sql: Sql, id: string, v: RenderVariantInput, now: Date): Promise<RenderVariant> {
    const rows = await sql.query<VariantRow>(
      `INSERT INTO design_render_variants (id, design_id, render_target, document, created_at, updated_at)
       VALUES ($1, $2, $3, $4::jsonb, $5, $5) RETURNING *`,
      [id, v.designId, v.renderTarget, documentOf(v), now],
    );
    return toVariant(rows.rows[0]!);
  },

  async get(sql: Sql, id: string): Promise<RenderVariant | null> {
    const rows = await sql.query<VariantRow>(`SELECT * FROM design_render_variants WHERE id = $1`, [id]);
    return rows.rows[0] ? toVariant(rows.rows[0]) : null;
  },

  async list(sql: Sql, filter: { designId?: string; renderTarget?: string }): Promise<RenderVariant[]> {
    const rows = await sql.query<VariantRow>(
      `SELECT * FROM design_render_variants
        WHERE ($1::uuid IS NULL OR design_id = $1) AND ($2::text IS NULL OR render_target = $2)
        ORDER BY created_at, id LIMIT 500`,
      [filter.designId ?? null, filter.renderTarget ?? null],
    );
    return rows.rows.map(toVariant);
  },

  async update(sql: Sql, id: string, v: RenderVariantInput, now: Date): Promise<RenderVariant | null> {
    const rows = await sql.query<VariantRow>(
      `UPDATE design_render_variants SET design_id = $2, render_target = $3, document = $4::jsonb, updated_at = $5
        WHERE id = $1 RETURNING *`,
      [id, v.designId, v.renderTarget, documentOf(v), now],
    );
    return rows.rows[0] ? toVariant(rows.rows[0]) : null;
  },

  async delete(sql: Sql, id: string): Promise<boolean> {
    return (await sql.query(`DELETE FROM design_render_variants WHERE id = $1`, [id])).rowCount > 0;
  },

  async deleteForDesign(sql: Sql, designId: string): Promise<void> {
    await sql.query(`DELETE FROM design_render_variants WHERE design_id = $1`, [designId]);
  },
};
