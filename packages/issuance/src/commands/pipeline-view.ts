import type { PipelineConfiguration } from '../domain/pipeline.js';
import type { PipelineRow } from '../storage/pipeline-store.js';

/** A stored pipeline as the admin API answers it. */
export type PipelineView = PipelineConfiguration & { createdAt: string; updatedAt: string };

export const pipelineView = (row: PipelineRow): PipelineView => ({
  ...row.configuration,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
