import { randomUUID } from 'node:crypto';
import type { KindInfo } from '../domain/kinds.js';
import { bindingTaken, normalizeDesign } from '../domain/normalize-design.js';
import type { DesignInput, DesignRecord } from '../domain/records.js';
import type { DesignsServices } from '../services.js';
import { designStore } from '../storage/design-store.js';
import { isUniqueViolation } from '../storage/rows.js';
import { designCommand } from './design-commands.js';

/** POST /designs/{kind} (001 §4.1): 201 with the record; a binding taken in the tenant → 409 ALREADY_EXISTS_ERROR. */
export const createDesign = (s: DesignsServices, info: KindInfo) =>
  designCommand<DesignInput, DesignRecord>(s, {
    id: `${info.commandPrefix}.create`,
    access: 'write',
    businessIds: (_input, output): Record<string, string> => (output ? { designId: output.id } : {}),
    async run(ctx, input) {
      const normalized = normalizeDesign(input);
      try {
        const stored = await ctx.unitOfWork((sql) =>
          designStore.insert(sql, { id: randomUUID(), kind: info.kind, input: normalized, now: s.clock.now() }),
        );
        return stored.record;
      } catch (error) {
        if (isUniqueViolation(error)) throw bindingTaken();
        throw error;
      }
    },
  });
