import Type, { type Static, type TSchema } from 'typebox';
import type { Sql, TenantExporter } from '@tessera/platform';
import { postgresBlobStore, type BlobStore } from '../storage/blob-store.js';

type Kind = 'text' | 'uuid' | 'key' | 'json' | 'time' | 'bytes' | 'int';
interface Table {
  name: string;
  order: string;
  /** Column → [kind, nullable]. Never `tenant_id`: row-level security writes the target's. */
  columns: Record<string, [Kind, boolean]>;
}

/**
 * The registry's tables, parents first (bindings, variants and assets reference their design). Snapshots are the
 * source documents an import fetched (public issuer metadata, not subject data); asset bytes come from the blob
 * store, which may be S3-compatible, under each asset's key.
 */
const TABLES: readonly Table[] = [
  {
    name: 'design_snapshots',
    order: 'id',
    columns: {
      id: ['uuid', false],
      entity_type: ['text', false],
      source_url: ['text', false],
      source_type: ['text', false],
      content_type: ['text', false],
      payload: ['bytes', false],
      sha256: ['text', false],
      etag: ['text', true],
      last_modified: ['text', true],
      fetched_at: ['time', false],
      checked_at: ['time', false],
    },
  },
  {
    name: 'design_records',
    order: 'id',
    columns: {
      id: ['uuid', false],
      entity_type: ['text', false],
      alias: ['text', false],
      hosting_mode: ['text', false],
      source_type: ['text', true],
      source_url: ['text', true],
      snapshot_id: ['uuid', true],
      document: ['json', false],
      source_document: ['json', true],
      revision: ['int', false],
      created_at: ['time', false],
      updated_at: ['time', false],
    },
  },
  {
    name: 'design_bindings',
    order: 'entity_type, binding_key, binding_value',
    columns: {
      entity_type: ['text', false],
      binding_key: ['text', false],
      binding_value: ['text', false],
      design_id: ['uuid', false],
      position: ['int', false],
    },
  },
  {
    name: 'design_render_variants',
    order: 'id',
    columns: {
      id: ['uuid', false],
      design_id: ['uuid', false],
      render_target: ['text', false],
      document: ['json', false],
      created_at: ['time', false],
      updated_at: ['time', false],
    },
  },
  {
    name: 'design_assets',
    order: 'design_id, locale, asset_type',
    columns: {
      design_id: ['uuid', false],
      locale: ['text', false],
      asset_type: ['text', false],
      content_type: ['text', false],
      size: ['int', false],
      sha256: ['text', false],
      blob_key: ['key', false],
      created_at: ['time', false],
    },
  },
];

const BASE64 = Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$', maxLength: 16 * 1024 * 1024 });
/** A blob key: path segments of safe characters, no `..` (an S3-compatible store uses it in the object key). */
const BLOB_KEY = Type.String({ maxLength: 512, pattern: '^(?!.*\\.\\.)[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$' });
const kindSchema: Record<Kind, TSchema> = {
  text: Type.String({ maxLength: 65536 }),
  uuid: Type.String({ format: 'uuid' }),
  key: BLOB_KEY,
  json: Type.Record(Type.String(), Type.Unknown()),
  time: Type.String({ format: 'date-time' }),
  bytes: BASE64,
  int: Type.Integer(),
};
const tableSchema = (t: Table) =>
  Type.Array(
    Type.Object(
      Object.fromEntries(
        Object.entries(t.columns).map(([c, [kind, nullable]]) => [
          c,
          nullable ? Type.Union([kindSchema[kind], Type.Null()]) : kindSchema[kind],
        ]),
      ),
      { additionalProperties: false },
    ),
    { maxItems: 10000 },
  );

const Designs = Type.Object(
  {
    ...Object.fromEntries(TABLES.map((t) => [t.name, tableSchema(t)])),
    /** Asset bytes by blob key (base64). */
    design_blobs: Type.Record(BLOB_KEY, BASE64, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
type Designs = Static<typeof Designs>;
type Row = Record<string, unknown>;

/** Parameters take their column's type (text into a uuid column needs no cast); JSON goes as its text. */
const cast = (kind: Kind) => (kind === 'json' ? '::jsonb' : '');

function fromColumn(kind: Kind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'time':
      return new Date(value as string | Date).toISOString();
    case 'bytes':
      return Buffer.from(value as Uint8Array).toString('base64');
    case 'json':
      return typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
    case 'int':
      return Number(value);
    default:
      return String(value);
  }
}

function toParameter(kind: Kind, value: unknown): unknown {
  if (value === null) return null;
  if (kind === 'bytes') return Buffer.from(value as string, 'base64');
  if (kind === 'json') return JSON.stringify(value);
  return value;
}

async function readTable(sql: Sql, t: Table): Promise<Row[]> {
  const cols = Object.keys(t.columns);
  const { rows } = await sql.query<Row>(`SELECT ${cols.join(', ')} FROM ${t.name} ORDER BY ${t.order}`);
  return rows.map((r) => Object.fromEntries(cols.map((c) => [c, fromColumn(t.columns[c]![0], r[c])])));
}

async function writeTable(sql: Sql, t: Table, rows: readonly Row[]): Promise<void> {
  const cols = Object.keys(t.columns);
  const placeholders = cols.map((c, i) => `$${i + 1}${cast(t.columns[c]![0])}`).join(', ');
  const text = `INSERT INTO ${t.name} (${cols.join(', ')}) VALUES (${placeholders})`;
  for (const row of rows)
    await sql.query(
      text,
      cols.map((c) => toParameter(t.columns[c]![0], row[c])),
    );
}

/**
 * The credential design registry of the tenant (001 §2.1, §4.1) for the tenant export (001 §4.5): credential,
 * issuer and verifier designs with their bindings, source snapshots, render variants and assets, with their ids,
 * revisions and times as stored, so that an import is the same registry. Designs hold no subject data.
 */
export function credentialDesignsExporter(blobs: BlobStore = postgresBlobStore): TenantExporter<Designs> {
  return {
    section: 'designs.credential-designs',
    origin: 'stored',
    schema: Designs,
    async read(unit) {
      const out: Record<string, unknown> = {};
      for (const t of TABLES) out[t.name] = await readTable(unit.sql, t);
      const bytes: Record<string, string> = {};
      for (const asset of out.design_assets as Row[]) {
        const key = asset.blob_key as string;
        const blob = await blobs.get(unit, key);
        if (blob) bytes[key] = blob.toString('base64');
      }
      out.design_blobs = bytes;
      return out as Designs;
    },
    async isEmpty({ sql }) {
      return (await sql.query('SELECT 1 FROM design_records LIMIT 1')).rowCount === 0;
    },
    async write(unit, data) {
      const d = data as Record<string, Row[]> & { design_blobs: Record<string, string> };
      for (const t of TABLES) await writeTable(unit.sql, t, d[t.name] ?? []);
      for (const [key, b64] of Object.entries(d.design_blobs)) await blobs.put(unit, key, Buffer.from(b64, 'base64'));
    },
  };
}
