import { defineCommand } from '@tessera/platform';
import { listNotFound } from '../domain/errors.js';
import { statusInByte, statusPosition } from '../domain/status-bits.js';
import { checkAllocated } from '../entries/allocated.js';
import { getList, getStatusByte } from '../storage/list-rows.js';
import type { StatusListServices } from '../services.js';
import { entryStatus, type EntryStatus } from './entry-status.js';

export const READ_STATUS_ENTRY = 'status-list.read-entry';

/** GET /vc/status-lists/{listId}/entries/{index} (issue 16 §3): the stored status of one allocated entry. */
export const readStatusEntry = (s: StatusListServices) =>
  defineCommand<{ listId: string; index: number }, EntryStatus>({
    id: READ_STATUS_ENTRY,
    access: 'read',
    businessIds: (input) => ({ listId: input.listId, index: String(input.index) }),
    async run(ctx, { listId, index }) {
      const { list, byte } = await s.platform.db.withTenant(ctx.tenantId, async (sql) => {
        const found = await getList(sql, listId);
        if (!found) throw listNotFound();
        checkAllocated(found, index);
        return { list: found, byte: await getStatusByte(sql, found, statusPosition(index, found.bits).byte) };
      });
      return entryStatus(s, ctx.tenantId, list, index, statusInByte(byte, statusPosition(index, list.bits)));
    },
  });
