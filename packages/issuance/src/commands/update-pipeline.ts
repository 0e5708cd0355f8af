import { defineCommand } from '@tessera/platform';
import { pipelineNotFound } from '../domain/errors.js';
import { normalizePipeline, type PipelineConfigurationInput } from '../domain/pipeline.js';
import type { IssuanceServices } from '../services.js';
import { pipelineStore } from '../storage/pipeline-store.js';
import { UPDATE_PIPELINE } from './ids.js';
import { pipelineView, type PipelineView } from './pipeline-view.js';

/** PUT /pipelines/{pipelineId}: replaces a stored configuration. Sessions begun earlier keep their own copy. */
export const updatePipeline = (s: IssuanceServices) =>
  defineCommand<PipelineConfigurationInput, PipelineView>({
    id: UPDATE_PIPELINE,
    access: 'write',
    businessIds: (input) => ({ pipelineId: input.pipelineId }),
    async run(ctx, input) {
      const configuration = normalizePipeline(input);
      const row = await ctx.unitOfWork((sql) => pipelineStore.replace(sql, configuration, s.clock.now()));
      if (!row) throw pipelineNotFound();
      return pipelineView(row);
    },
  });
