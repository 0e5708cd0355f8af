import { defineCommand } from '@tessera/platform';
import { finalStatus, listNotFound } from '../domain/errors.js';
import { byteWithStatus, statusInByte, statusPosition } from '../domain/status-bits.js';
import { isFinalStatus, statusNameOf, statusValueOf, type StatusInput } from '../domain/status-values.js';
import { getListWithStatusByte, writeStatusByte } from '../storage/list-rows.js';
import type { StatusListServices } from '../services.js';
import { checkAllocated, entryStatus, type EntryStatus } from './entry-status.js';

export const UPDATE_STATUS_ENTRY = 'status-list.update-entry';

export interface UpdateStatusEntryInput {
  listId: string;
  index: number;
  status: StatusInput;
  /** Why, as a short code (e.g. keyCompromise, superseded, a ticket number): it goes into the audit event. */
  reason?: string | undefined;
}

export interface UpdateStatusEntryOutput extends EntryStatus {
  previous: { status: string; value: number };
}

/**
 * PUT /vc/status-lists/{listId}/entries/{index} (issue 16 §3): sets the status of an allocated entry. The list row
 * is locked for the read-modify-write of its byte, so concurrent changes of neighbouring entries in one byte never
 * undo each other; the list's version moves, and the next read of the publication signs again. A revoked entry of
 * a revocation list stays revoked (409). Audited with list id, index, old → new status and the reason.
 */
export const updateStatusEntry = (s: StatusListServices) =>
  defineCommand<UpdateStatusEntryInput, UpdateStatusEntryOutput>({
    id: UPDATE_STATUS_ENTRY,
    access: 'write',
    businessIds: (input, output) => ({
      listId: input.listId,
      index: String(input.index),
      ...(output ? { oldStatus: output.previous.status, newStatus: output.status } : {}),
      ...(input.reason ? { reason: input.reason } : {}),
    }),
    async run(ctx, input) {
      const { listId, index } = input;
      return s.platform.db.withTenant(ctx.tenantId, async (sql) => {
        const found = await getListWithStatusByte(sql, listId, index, { lock: true });
        if (!found) throw listNotFound();
        const { list, byte } = found;
        checkAllocated(list, index);
        const value = statusValueOf(input.status, list);
        const position = statusPosition(index, list.bits);
        const old = statusInByte(byte, position);
        if (old !== value) {
          if (isFinalStatus(old, list)) throw finalStatus();
          await writeStatusByte(sql, listId, position.byte, byteWithStatus(byte, position, value), s.clock.now());
        }
        return {
          ...entryStatus(s, ctx.tenantId, list, index, value),
          previous: { status: statusNameOf(old, list), value: old },
        };
      });
    },
  });
