import { defineCommand } from '@tessera/platform';
import { entryShape, type AllocatedEntry } from '../domain/entry-shapes.js';
import type { StatusListServices } from '../services.js';

export const ALLOCATE_STATUS_ENTRY = 'status-list.allocate-entry';

/**
 * POST /vc/status-lists/{listId}/entries (issue 16 §3): an index for a new credential in the newest list of the
 * series `listId` belongs to (entries/entry-allocator.ts: unique across replicas, random-looking, never reused,
 * rolling over to a new list of the same configuration when full). The entry names the list it was allocated in,
 * in the shapes credentials carry.
 */
export const allocateStatusEntry = (s: StatusListServices) =>
  defineCommand<{ listId: string }, AllocatedEntry>({
    id: ALLOCATE_STATUS_ENTRY,
    access: 'write',
    businessIds: (input, output) => ({
      listId: output?.listId ?? input.listId,
      ...(output ? { index: String(output.index) } : {}),
    }),
    async run(ctx, { listId }) {
      // Staged by the statement that reserves the entry (issue 13 §7): the counter and the event commit together.
      const audit = ctx.auditIntent();
      const { list, index } = await s.allocator.allocate(ctx.tenantId, listId, audit.event);
      audit.committed();
      return entryShape(list, index, s.uriOf(ctx.tenantId, list.listId));
    },
  });
