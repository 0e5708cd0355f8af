import { defineCommand } from '@tessera/platform';
import { pipelineNotFound } from '../domain/errors.js';
import type { IssuanceServices } from '../services.js';
import { pipelineStore } from '../storage/pipeline-store.js';
import { GET_PIPELINE } from './ids.js';
import { pipelineView, type PipelineView } from './pipeline-view.js';

/** GET /pipelines/{pipelineId}. */
export const getPipeline = (s: IssuanceServices) =>
  defineCommand<{ pipelineId: string }, PipelineView>({
    id: GET_PIPELINE,
    access: 'read',
    businessIds: (input) => ({ pipelineId: input.pipelineId }),
    async run(ctx, input) {
      const row = await s.platform.db.withTenant(ctx.tenantId, (sql) => pipelineStore.get(sql, input.pipelineId));
      if (!row) throw pipelineNotFound();
      return pipelineView(row);
    },
  });
