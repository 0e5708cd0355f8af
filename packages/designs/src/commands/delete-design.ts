import type { KindInfo } from '../domain/kinds.js';
import { designNotFound } from '../domain/normalize-design.js';
import type { DesignsServices } from '../services.js';
import { designStore } from '../storage/design-store.js';
import { designCommand } from './design-commands.js';

/**
 * DELETE /designs/{kind}/{designId} (001 §3: 204, 404 if absent). Its bindings, render variants and asset records
 * go with it (foreign keys); the asset bytes are removed from the blob store in the same unit of work.
 */
export const deleteDesign = (s: DesignsServices, info: KindInfo) =>
  designCommand<{ designId: string }, void>(s, {
    id: `${info.commandPrefix}.delete`,
    access: 'write',
    businessIds: (input) => ({ designId: input.designId }),
    async run(ctx, input) {
      // An absent design is refused inside the unit: nothing is staged for a command that answers 404.
      await ctx.unitOfWork(async (sql) => {
        if (!(await designStore.delete(sql, info.kind, input.designId))) throw designNotFound();
        await s.blobs.deletePrefix({ tenantId: ctx.tenantId, sql }, `${input.designId}/`);
      });
    },
  });
