import type { Sql } from '@tessera/platform';
import type { DesignKind, HostingMode, SourceType } from '../domain/enums.js';
import type {
  Binding,
  DesignDocument,
  DesignInput,
  DesignRecord,
  RenderVariant,
  StoredDesign,
} from '../domain/records.js';
import { iso } from './rows.js';

/** SQL of design_records and design_bindings. The tenant is the unit of work's (row-level security). */
interface DesignRow {
  tenant_id: string;
  id: string;
  entity_type: DesignKind;
  alias: string;
  hosting_mode: HostingMode;
  source_type: SourceType | null;
  source_url: string | null;
  snapshot_id: string | null;
  document: DesignDocument;
  source_document: DesignDocument | null;
  revision: number;
  created_at: Date;
  updated_at: Date;
  bindings: Binding[];
}

const SELECT = `SELECT d.tenant_id, d.id, d.entity_type, d.alias, d.hosting_mode, d.source_type, d.source_url,
         d.snapshot_id, d.document, d.source_document, d.revision, d.created_at, d.updated_at,
         COALESCE((SELECT jsonb_agg(jsonb_build_object('key', b.binding_key, 'value', b.binding_value)
                                    ORDER BY b.position)
                     FROM design_bindings b WHERE b.tenant_id = d.tenant_id AND b.design_id = d.id), '[]') AS bindings
    FROM design_records d`;

function toStored(row: DesignRow): StoredDesign {
  const { displays, claims, policyUri, termsOfServiceUri, lockedFields } = row.document;
  const record: DesignRecord = {
    id: row.id,
    tenantId: row.tenant_id,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    entityType: row.entity_type,
    bindings: row.bindings,
    alias: row.alias,
    hostingMode: row.hosting_mode,
    displays,
    ...(claims === undefined ? {} : { claims }),
    ...(policyUri === undefined ? {} : { policyUri }),
    ...(termsOfServiceUri === undefined ? {} : { termsOfServiceUri }),
    ...(lockedFields === undefined ? {} : { lockedFields }),
    ...(row.source_type === null ? {} : { sourceType: row.source_type }),
    ...(row.source_url === null ? {} : { sourceUrl: row.source_url }),
    ...(row.snapshot_id === null ? {} : { snapshotId: row.snapshot_id }),
  };
  return { record, sourceDocument: row.source_document, revision: row.revision };
}

export function documentOf(input: DesignDocument): DesignDocument {
  const { displays, claims, policyUri, termsOfServiceUri, lockedFields } = input;
  return {
    displays,
    ...(claims === undefined ? {} : { claims }),
    ...(policyUri === undefined ? {} : { policyUri }),
    ...(termsOfServiceUri === undefined ? {} : { termsOfServiceUri }),
    ...(lockedFields === undefined ? {} : { lockedFields }),
  };
}

export interface SourceFields {
  sourceType: SourceType;
  sourceUrl: string;
  snapshotId: string;
  sourceDocument: DesignDocument;
}

export interface DesignFilters {
  hostingMode?: HostingMode;
  bindingKey?: string;
  bindingValue?: string;
  aliasContains?: string;
  sourceType?: SourceType;
  limit: number;
  offset: number;
}

async function insertBindings(sql: Sql, kind: DesignKind, id: string, bindings: readonly Binding[]): Promise<void> {
  if (bindings.length === 0) return;
  await sql.query(
    `INSERT INTO design_bindings (entity_type, binding_key, binding_value, design_id, position)
     SELECT $1, b.elem ->> 'key', b.elem ->> 'value', $2, b.ord - 1
       FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS b(elem, ord)`,
    [kind, id, JSON.stringify(bindings)],
  );
}

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The design and its render variants in one statement: what a resolve reads (one round trip per request). */
const RESOLVE_SELECT = SELECT.replace(
  'FROM design_records d',
  `, COALESCE((SELECT jsonb_agg(v.document || jsonb_build_object('id', v.id, 'tenantId', v.tenant_id,
                   'designId', v.design_id, 'renderTarget', v.render_target, 'createdAt', ${ISO('v.created_at')},
                   'updatedAt', ${ISO('v.updated_at')}) ORDER BY v.created_at, v.id)
                FROM design_render_variants v WHERE v.tenant_id = d.tenant_id AND v.design_id = d.id), '[]') AS variants
    FROM design_records d`,
);

/** What a resolve names: a design of a kind, by id or by binding. */
export type DesignSelector = { kind: DesignKind } & ({ designId: string } | { key: string; value: string });

/** Many resolves' reads in one statement (storage/resolve-reads.ts), answered in the order asked. */
const RESOLVE_BATCH = `WITH wanted AS (
    SELECT w.ord, w.elem ->> 'kind' AS kind,
           COALESCE((w.elem ->> 'designId')::uuid,
                    (SELECT b.design_id FROM design_bindings b
                      WHERE b.entity_type = w.elem ->> 'kind' AND b.binding_key = w.elem ->> 'key'
                        AND b.binding_value = w.elem ->> 'value')) AS id
      FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS w(elem, ord))
  SELECT wanted.ord, r.*
    FROM wanted CROSS JOIN LATERAL (${RESOLVE_SELECT} WHERE d.id = wanted.id AND d.entity_type = wanted.kind) r`;

/**
 * What a conditional resolve reads before anything else (RESOLVE_BATCH's rows, without their documents): the
 * design's id, revision and update time and its variants' ids and update times, in the order RESOLVE_SELECT lists
 * them. These are what the ETag is computed from (domain/resolve-design.ts), so an If-None-Match is answered 304
 * without reading, parsing or merging any document.
 */
const VALIDATORS_BATCH = `WITH wanted AS (
    SELECT w.ord, w.elem ->> 'kind' AS kind,
           COALESCE((w.elem ->> 'designId')::uuid,
                    (SELECT b.design_id FROM design_bindings b
                      WHERE b.entity_type = w.elem ->> 'kind' AND b.binding_key = w.elem ->> 'key'
                        AND b.binding_value = w.elem ->> 'value')) AS id
      FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS w(elem, ord))
  SELECT wanted.ord, d.id, d.revision, d.updated_at,
         COALESCE((SELECT jsonb_agg(jsonb_build_array(v.id, ${ISO('v.updated_at')}) ORDER BY v.created_at, v.id)
                     FROM design_render_variants v WHERE v.tenant_id = d.tenant_id AND v.design_id = d.id), '[]')
           AS variants
    FROM wanted JOIN design_records d ON d.id = wanted.id AND d.entity_type = wanted.kind`;

/** The inputs of a design's ETag besides the request's own (see VALIDATORS_BATCH). */
export interface DesignValidators {
  designId: string;
  revision: number;
  updatedAt: string;
  /** `[id, updatedAt]` of each render variant, in the order a resolve lists them. */
  variants: [string, string][];
}

export const designStore = {
  /** The ETag inputs of many conditional resolves in one statement, answered in the order asked (null: none). */
  async validatorsBatch(sql: Sql, selectors: readonly DesignSelector[]): Promise<(DesignValidators | null)[]> {
    const rows = await sql.query<{
      ord: string | number;
      id: string;
      revision: number;
      updated_at: Date;
      variants: [string, string][];
    }>(VALIDATORS_BATCH, [JSON.stringify(selectors)], { prepareAs: 'designs_resolve_validators_batch' });
    const out: (DesignValidators | null)[] = selectors.map(() => null);
    for (const row of rows.rows)
      out[Number(row.ord) - 1] = {
        designId: row.id,
        revision: row.revision,
        updatedAt: iso(row.updated_at),
        variants: row.variants,
      };
    return out;
  },

  async withVariantsBatch(
    sql: Sql,
    selectors: readonly DesignSelector[],
  ): Promise<({ stored: StoredDesign; variants: RenderVariant[] } | null)[]> {
    const rows = await sql.query<DesignRow & { variants: RenderVariant[]; ord: string | number }>(
      RESOLVE_BATCH,
      [JSON.stringify(selectors)],
      { prepareAs: 'designs_resolve_batch' },
    );
    const out: ({ stored: StoredDesign; variants: RenderVariant[] } | null)[] = selectors.map(() => null);
    for (const row of rows.rows) out[Number(row.ord) - 1] = { stored: toStored(row), variants: row.variants };
    return out;
  },

  /** Inserts a design and its bindings; a taken binding raises the unique violation (the caller's 409). */
  async insert(
    sql: Sql,
    row: { id: string; kind: DesignKind; input: DesignInput; now: Date; source?: SourceFields },
  ): Promise<StoredDesign> {
    const { input, source } = row;
    await sql.query(
      `INSERT INTO design_records (id, entity_type, alias, hosting_mode, source_type, source_url, snapshot_id,
                                   document, source_document, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10, $10)`,
      [
        row.id,
        row.kind,
        input.alias,
        input.hostingMode,
        source?.sourceType ?? null,
        source?.sourceUrl ?? null,
        source?.snapshotId ?? null,
        JSON.stringify(documentOf(input)),
        source ? JSON.stringify(source.sourceDocument) : null,
        row.now,
      ],
    );
    await insertBindings(sql, row.kind, row.id, input.bindings);
    return (await this.get(sql, row.kind, row.id))!;
  },

  async get(sql: Sql, kind: DesignKind, id: string): Promise<StoredDesign | null> {
    const rows = await sql.query<DesignRow>(`${SELECT} WHERE d.id = $1 AND d.entity_type = $2`, [id, kind]);
    return rows.rows[0] ? toStored(rows.rows[0]) : null;
  },

  async findByBinding(sql: Sql, kind: DesignKind, key: string, value: string): Promise<StoredDesign | null> {
    const rows = await sql.query<DesignRow>(
      `${SELECT} WHERE d.id = (SELECT design_id FROM design_bindings
                               WHERE entity_type = $1 AND binding_key = $2 AND binding_value = $3)`,
      [kind, key, value],
    );
    return rows.rows[0] ? toStored(rows.rows[0]) : null;
  },

  async list(sql: Sql, kind: DesignKind, f: DesignFilters): Promise<StoredDesign[]> {
    const where = ['d.entity_type = $1'];
    const params: unknown[] = [kind];
    const add = (clause: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(clause(`$${params.length}`));
    };
    if (f.hostingMode !== undefined) add((p) => `d.hosting_mode = ${p}`, f.hostingMode);
    if (f.sourceType !== undefined) add((p) => `d.source_type = ${p}`, f.sourceType);
    if (f.aliasContains !== undefined) add((p) => `strpos(lower(d.alias), lower(${p})) > 0`, f.aliasContains);
    if (f.bindingKey !== undefined || f.bindingValue !== undefined) {
      const conditions = ['b.tenant_id = d.tenant_id', 'b.design_id = d.id'];
      if (f.bindingKey !== undefined) {
        params.push(f.bindingKey);
        conditions.push(`b.binding_key = $${params.length}`);
      }
      if (f.bindingValue !== undefined) {
        params.push(f.bindingValue);
        conditions.push(`b.binding_value = $${params.length}`);
      }
      where.push(`EXISTS (SELECT 1 FROM design_bindings b WHERE ${conditions.join(' AND ')})`);
    }
    params.push(f.limit, f.offset);
    const rows = await sql.query<DesignRow>(
      `${SELECT} WHERE ${where.join(' AND ')} ORDER BY d.created_at, d.id
        LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return rows.rows.map(toStored);
  },

  /**
   * Replaces the editable fields and the bindings; `source` replaces the source fields too (refresh). Answers
   * null when the design is not in this tenant.
   */
  async update(
    sql: Sql,
    row: { id: string; kind: DesignKind; input: DesignInput; now: Date; source?: SourceFields },
  ): Promise<StoredDesign | null> {
    const { input, source } = row;
    const updated = await sql.query(
      `UPDATE design_records
          SET alias = $3, hosting_mode = $4, document = $5::jsonb, updated_at = $6, revision = revision + 1,
              source_type = COALESCE($7, source_type), source_url = COALESCE($8, source_url),
              snapshot_id = COALESCE($9::uuid, snapshot_id), source_document = COALESCE($10::jsonb, source_document)
        WHERE id = $1 AND entity_type = $2`,
      [
        row.id,
        row.kind,
        input.alias,
        input.hostingMode,
        JSON.stringify(documentOf(input)),
        row.now,
        source?.sourceType ?? null,
        source?.sourceUrl ?? null,
        source?.snapshotId ?? null,
        source ? JSON.stringify(source.sourceDocument) : null,
      ],
    );
    if (updated.rowCount === 0) return null;
    await sql.query(`DELETE FROM design_bindings WHERE design_id = $1`, [row.id]);
    await insertBindings(sql, row.kind, row.id, input.bindings);
    return this.get(sql, row.kind, row.id);
  },

  async delete(sql: Sql, kind: DesignKind, id: string): Promise<boolean> {
    const deleted = await sql.query(`DELETE FROM design_records WHERE id = $1 AND entity_type = $2`, [id, kind]);
    return deleted.rowCount > 0;
  },

  /** Designs whose source is this snapshot (a snapshot refresh re-maps each). */
  async idsBySnapshot(sql: Sql, snapshotId: string): Promise<{ id: string; kind: DesignKind }[]> {
    const rows = await sql.query<{ id: string; entity_type: DesignKind }>(
      `SELECT id, entity_type FROM design_records WHERE snapshot_id = $1 ORDER BY created_at, id`,
      [snapshotId],
    );
    return rows.rows.map((r) => ({ id: r.id, kind: r.entity_type }));
  },
};
