import { defineCommand } from '@tessera/platform';
import type { IssuanceServices } from '../services.js';
import { pipelineStore } from '../storage/pipeline-store.js';
import { LIST_PIPELINES } from './ids.js';
import { pipelineView, type PipelineView } from './pipeline-view.js';

/** GET /pipelines: the tenant's pipeline configurations by id (a tenant holds few; no paging). */
export const listPipelines = (s: IssuanceServices) =>
  defineCommand<Record<string, never>, { data: PipelineView[] }>({
    id: LIST_PIPELINES,
    access: 'read',
    async run(ctx) {
      const rows = await s.platform.db.withTenant(ctx.tenantId, (sql) => pipelineStore.list(sql));
      return { data: rows.map(pipelineView) };
    },
  });
