import { defineCommand } from '@tessera/platform';
import { alreadyExists } from '../domain/errors.js';
import { normalizePipeline, type PipelineConfigurationInput } from '../domain/pipeline.js';
import type { IssuanceServices } from '../services.js';
import { pipelineStore } from '../storage/pipeline-store.js';
import { CREATE_PIPELINE } from './ids.js';
import { pipelineView, type PipelineView } from './pipeline-view.js';

/** POST /pipelines: stores a pipeline configuration in the tenant (tenant administrators); its id is unique. */
export const createPipeline = (s: IssuanceServices) =>
  defineCommand<PipelineConfigurationInput, PipelineView>({
    id: CREATE_PIPELINE,
    access: 'write',
    businessIds: (input) => ({ pipelineId: input.pipelineId }),
    async run(ctx, input) {
      const configuration = normalizePipeline(input);
      const now = s.clock.now();
      const created = await ctx.unitOfWork((sql) => pipelineStore.insert(sql, configuration, now));
      if (!created) throw alreadyExists('A pipeline with this id exists in the tenant.', 'pipelineId');
      return pipelineView({ configuration, createdAt: now, updatedAt: now });
    },
  });
