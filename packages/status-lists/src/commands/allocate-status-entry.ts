import { randomBytes } from 'node:crypto';
import { AppError, defineCommand } from '@tessera/platform';
import { entryShape, type AllocatedEntry } from '../domain/entry-shapes.js';
import { listNotFound } from '../domain/errors.js';
import { IndexPermutation } from '../domain/index-permutation.js';
import { rolloverListId } from '../domain/list-definition.js';
import { allocateCounter, insertRollover } from '../storage/list-rows.js';
import type { StatusListServices } from '../services.js';

export const ALLOCATE_STATUS_ENTRY = 'status-list.allocate-entry';

/** Enough for a series that another replica fills at the same time; each round either allocates or rolls over. */
const MAX_ROUNDS = 16;

/**
 * POST /vc/status-lists/{listId}/entries (issue 16 §3): an index for a new credential in the newest list of the
 * series `listId` belongs to. The list's counter moves in one statement (unique across replicas); the index is the
 * counter under the list's permutation (random-looking, never reused). A full list rolls over: the next list of
 * the series, same configuration, is created (once, whichever replica gets there first) and allocation continues
 * in it; the entry names the list it was allocated in.
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
      const db = s.platform.db;
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const result = await db.withTenantSession(ctx.tenantId, (sql) => allocateCounter(sql, listId));
        if (result.kind === 'missing') throw listNotFound();
        if (result.kind === 'retry') continue;
        const list = result.list;
        if (result.kind === 'allocated') {
          const index = new IndexPermutation(list.permutationKey, list.length).forward(result.counter);
          return entryShape(list, index, s.uriOf(ctx.tenantId, list.listId));
        }
        const next = { listId: rolloverListId(list.seriesId, list.generation + 1), permutationKey: randomBytes(32) };
        await db.withTenantSession(ctx.tenantId, (sql) => insertRollover(sql, list, next, s.clock.now()));
        ctx.log.info({ list_id: list.listId, next_list_id: next.listId }, 'status list full; rolled over');
      }
      throw new AppError('conflict', 'The status list series is being filled faster than it rolls over; retry.');
    },
  });
