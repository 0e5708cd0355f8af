import { defineCommand } from '@tessera/platform';
import { statusNameOf, type StatusInput } from '../domain/status-values.js';
import type { StatusListServices } from '../services.js';
import { entryStatus, type EntryStatus } from './entry-status.js';

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
 * PUT /vc/status-lists/{listId}/entries/{index} (issue 16 §3): sets the status of an allocated entry
 * (entries/entry-updater.ts); the list's version moves, and the next read of the publication signs again. A revoked
 * entry of a revocation list stays revoked (409). Audited with list id, index, old → new status and the reason.
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
    async run(ctx, { listId, index, status }) {
      // Staged in the transaction that applies the change (issue 13 §7): the status and its event commit together.
      const audit = ctx.auditIntent();
      const { list, old, value } = await s.updater.update(ctx.tenantId, { listId, index, status, audit: audit.event });
      audit.committed();
      return {
        ...entryStatus(s, ctx.tenantId, list, index, value),
        previous: { status: statusNameOf(old, list), value: old },
      };
    },
  });
