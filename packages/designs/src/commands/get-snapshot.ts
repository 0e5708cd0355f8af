import { AppError } from '@tessera/platform';
import { SNAPSHOT_COMMANDS } from '../domain/kinds.js';
import type { DesignsServices } from '../services.js';
import { snapshotStore, type Snapshot } from '../storage/snapshot-store.js';
import { designCommand } from './design-commands.js';

/** GET /designs/snapshots/{snapshotId} (001 §4.1): the raw fetched payload, with its content type and validators. */
export const getSnapshot = (s: DesignsServices) =>
  designCommand<{ snapshotId: string }, Snapshot>(s, {
    id: `${SNAPSHOT_COMMANDS}.get`,
    access: 'read',
    businessIds: (input) => ({ snapshotId: input.snapshotId }),
    async run(ctx, input) {
      const snapshot = await s.platform.db.withTenantSession(ctx.tenantId, (sql) =>
        snapshotStore.get(sql, input.snapshotId),
      );
      if (!snapshot) throw new AppError('not_found', 'No such snapshot in this tenant.');
      return snapshot;
    },
  });
