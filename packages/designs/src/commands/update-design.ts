import type { KindInfo } from '../domain/kinds.js';
import { bindingTaken, designNotFound, normalizeDesign } from '../domain/normalize-design.js';
import type { DesignInput, DesignRecord } from '../domain/records.js';
import type { DesignsServices } from '../services.js';
import { designStore } from '../storage/design-store.js';
import { isUniqueViolation } from '../storage/rows.js';
import { designCommand } from './design-commands.js';

/**
 * PUT /designs/{kind}/{designId} (001 §4.1; body "not shown": the same design as a create, replacing every
 * editable field and the bindings). The source of an imported design stays; 404 when absent; 409 on a binding
 * taken by another design.
 */
export const updateDesign = (s: DesignsServices, info: KindInfo) =>
  designCommand<{ designId: string; design: DesignInput }, DesignRecord>(s, {
    id: `${info.commandPrefix}.update`,
    access: 'write',
    businessIds: (input) => ({ designId: input.designId }),
    async run(ctx, input) {
      const normalized = normalizeDesign(input.design);
      try {
        // An absent design is refused inside the unit: nothing is staged for a command that answers 404.
        const stored = await ctx.unitOfWork(async (sql) => {
          const updated = await designStore.update(sql, {
            id: input.designId,
            kind: info.kind,
            input: normalized,
            now: s.clock.now(),
          });
          if (!updated) throw designNotFound();
          return updated;
        });
        return stored.record;
      } catch (error) {
        if (isUniqueViolation(error)) throw bindingTaken();
        throw error;
      }
    },
  });
