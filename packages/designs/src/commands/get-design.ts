import type { KindInfo } from '../domain/kinds.js';
import { designNotFound } from '../domain/normalize-design.js';
import type { DesignRecord } from '../domain/records.js';
import type { DesignsServices } from '../services.js';
import { designStore } from '../storage/design-store.js';
import { designCommand } from './design-commands.js';

/** GET /designs/{kind}/{designId} (001 §4.1): 200, or 404 NOT_FOUND_ERROR when not in the tenant. */
export const getDesign = (s: DesignsServices, info: KindInfo) =>
  designCommand<{ designId: string }, DesignRecord>(s, {
    id: `${info.commandPrefix}.get`,
    access: 'read',
    businessIds: (input) => ({ designId: input.designId }),
    async run(ctx, input) {
      const stored = await s.platform.db.withTenantSession(ctx.tenantId, (sql) =>
        designStore.get(sql, info.kind, input.designId),
      );
      if (!stored) throw designNotFound();
      return stored.record;
    },
  });
