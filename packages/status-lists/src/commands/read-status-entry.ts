import { defineCommand } from '@tessera/platform';
import { listNotFound } from '../domain/errors.js';
import { statusInByte, statusPosition } from '../domain/status-bits.js';
import { getListWithStatusByte } from '../storage/list-rows.js';
import type { StatusListServices } from '../services.js';
import { checkAllocated, entryStatus, type EntryStatus } from './entry-status.js';

export const READ_STATUS_ENTRY = 'status-list.read-entry';

/** GET /vc/status-lists/{listId}/entries/{index} (issue 16 §3): the stored status of one allocated entry. */
export const readStatusEntry = (s: StatusListServices) =>
  defineCommand<{ listId: string; index: number }, EntryStatus>({
    id: READ_STATUS_ENTRY,
    access: 'read',
    businessIds: (input) => ({ listId: input.listId, index: String(input.index) }),
    async run(ctx, { listId, index }) {
      const found = await s.platform.db.withTenantSession(ctx.tenantId, (sql) =>
        getListWithStatusByte(sql, listId, index, { lock: false }),
      );
      if (!found) throw listNotFound();
      checkAllocated(found.list, index);
      const value = statusInByte(found.byte, statusPosition(index, found.list.bits));
      return entryStatus(s, ctx.tenantId, found.list, index, value);
    },
  });
