import Type from 'typebox';
import type { Clock, TenantExporter } from '@tessera/platform';
import { normalizePipeline, type PipelineConfigurationInput } from '../domain/pipeline.js';
import { PipelineConfigurationBody } from '../http/schemas.js';
import { pipelineStore } from '../storage/pipeline-store.js';

const Pipelines = Type.Array(PipelineConfigurationBody, { maxItems: 1000 });
type Pipelines = PipelineConfigurationInput[];

/**
 * The issuance pipeline configurations of the tenant (001 §2.2), for the tenant export (001 §4.5). Configuration
 * only: sessions, their attribute bags and callback tokens hold subject data and are never exported. The import
 * normalises each configuration as the create command does, so a hand-edited document cannot store what the API
 * would refuse.
 */
export function issuancePipelinesExporter(clock: Clock): TenantExporter<Pipelines> {
  return {
    section: 'issuance.pipelines',
    origin: 'stored',
    schema: Pipelines,
    async read({ sql }) {
      return (await pipelineStore.list(sql)).map((row) => row.configuration);
    },
    async isEmpty({ sql }) {
      return (await sql.query('SELECT 1 FROM issuance_pipelines LIMIT 1')).rowCount === 0;
    },
    async write({ sql }, data) {
      const now = clock.now();
      for (const input of data) await pipelineStore.insert(sql, normalizePipeline(input), now);
    },
  };
}
