import { invalidRequest } from '@tessera/platform';
import type { KindInfo } from '../domain/kinds.js';
import { designNotFound } from '../domain/normalize-design.js';
import type { DesignRecord } from '../domain/records.js';
import { refreshSnapshot } from '../import/refresh-snapshot.js';
import type { DesignsServices } from '../services.js';
import { designStore } from '../storage/design-store.js';
import { designCommand } from './design-commands.js';

/**
 * POST /designs/{kind}/{designId}/refresh (001 §3, §4.1): a conditional re-fetch of the design's source snapshot;
 * 200 with the design as it now is (unchanged on a 304). A design that was not imported has nothing to refresh:
 * 400 naming designId. 404 when absent.
 */
export const refreshDesign = (s: DesignsServices, info: KindInfo) =>
  designCommand<{ designId: string }, DesignRecord>(s, {
    id: `${info.commandPrefix}.refresh`,
    access: 'write',
    businessIds: (input) => ({ designId: input.designId }),
    async run(ctx, input) {
      const db = s.platform.db;
      const stored = await db.withTenantSession(ctx.tenantId, (sql) => designStore.get(sql, info.kind, input.designId));
      if (!stored) throw designNotFound();
      if (!stored.record.snapshotId)
        throw invalidRequest('The design was not imported: it has no source to refresh.', 'designId');
      await refreshSnapshot(s, ctx, stored.record.snapshotId);
      const current = await db.withTenantSession(ctx.tenantId, (sql) =>
        designStore.get(sql, info.kind, input.designId),
      );
      if (!current) throw designNotFound();
      return current.record;
    },
  });
