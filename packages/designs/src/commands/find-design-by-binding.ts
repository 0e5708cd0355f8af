import type { KindInfo } from '../domain/kinds.js';
import { designNotFound } from '../domain/normalize-design.js';
import type { Binding, DesignRecord } from '../domain/records.js';
import type { DesignsServices } from '../services.js';
import { designStore } from '../storage/design-store.js';
import { designCommand } from './design-commands.js';

/**
 * The design bound to one binding pair (001 §4.1): POST /designs/{kind}/find/binding with `{key, value}`
 * (`find-by-binding`) and GET /designs/{kind}/bindings/{bindingKey}/{bindingValue} (`get-by-binding`). 404 when
 * no design of the tenant carries it.
 */
export const findDesignByBinding = (s: DesignsServices, info: KindInfo, action: 'find-by-binding' | 'get-by-binding') =>
  designCommand<Binding, DesignRecord>(s, {
    id: `${info.commandPrefix}.${action}`,
    access: 'read',
    businessIds: (input, output) => ({ bindingKey: input.key, ...(output ? { designId: output.id } : {}) }),
    async run(ctx, input) {
      const stored = await s.platform.db.withTenantSession(ctx.tenantId, (sql) =>
        designStore.findByBinding(sql, info.kind, input.key, input.value),
      );
      if (!stored) throw designNotFound();
      return stored.record;
    },
  });
