import type { Sql } from '@tessera/platform';
import type { PipelineConfiguration } from '../domain/pipeline.js';

/** SQL of the stored pipeline configurations; runs in the caller's tenant unit of work (row-level security). */
export interface PipelineRow {
  configuration: PipelineConfiguration;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  configuration: PipelineConfiguration | string;
  created_at: Date | string;
  updated_at: Date | string;
}

const toDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));
const toRow = (r: Row): PipelineRow => ({
  configuration:
    typeof r.configuration === 'string' ? (JSON.parse(r.configuration) as PipelineConfiguration) : r.configuration,
  createdAt: toDate(r.created_at),
  updatedAt: toDate(r.updated_at),
});

export const pipelineStore = {
  /** Inserts; answers false when the id is taken in the tenant. */
  async insert(sql: Sql, configuration: PipelineConfiguration, now: Date): Promise<boolean> {
    const result = await sql.query(
      `INSERT INTO issuance_pipelines (pipeline_id, configuration, created_at, updated_at)
       VALUES ($1, $2::jsonb, $3, $3) ON CONFLICT DO NOTHING RETURNING pipeline_id`,
      [configuration.pipelineId, JSON.stringify(configuration), now],
    );
    return result.rows.length === 1;
  },

  async replace(sql: Sql, configuration: PipelineConfiguration, now: Date): Promise<PipelineRow | null> {
    const result = await sql.query<Row>(
      `UPDATE issuance_pipelines SET configuration = $2::jsonb, updated_at = $3 WHERE pipeline_id = $1
       RETURNING configuration, created_at, updated_at`,
      [configuration.pipelineId, JSON.stringify(configuration), now],
    );
    return result.rows[0] ? toRow(result.rows[0]) : null;
  },

  async get(sql: Sql, pipelineId: string): Promise<PipelineRow | null> {
    const result = await sql.query<Row>(
      `SELECT configuration, created_at, updated_at FROM issuance_pipelines WHERE pipeline_id = $1`,
      [pipelineId],
    );
    return result.rows[0] ? toRow(result.rows[0]) : null;
  },

  async list(sql: Sql): Promise<PipelineRow[]> {
    const result = await sql.query<Row>(
      `SELECT configuration, created_at, updated_at FROM issuance_pipelines ORDER BY pipeline_id`,
    );
    return result.rows.map(toRow);
  },
};
