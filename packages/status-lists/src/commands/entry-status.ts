import type { StatusListServices } from '../services.js';
import { badInput, entryNotAllocated } from '../domain/errors.js';
import { IndexPermutation } from '../domain/index-permutation.js';
import { statusNameOf } from '../domain/status-values.js';
import type { StoredList } from '../storage/list-rows.js';

/** One entry as the API shows it (PUT and GET /vc/status-lists/{listId}/entries/{index}). */
export interface EntryStatus {
  listId: string;
  index: number;
  uri: string;
  /** valid, invalid, suspended, revoked or application-specific (status-values.ts). */
  status: string;
  value: number;
}

/** An index past the list is a bad request; one inside it that was never handed out is not found. */
export function checkAllocated(list: StoredList, index: number): void {
  if (index >= list.length) {
    throw badInput(`index ${index} is out of the range of the list (0 to ${list.length - 1}).`, 'index');
  }
  if (new IndexPermutation(list.permutationKey, list.length).inverse(index) >= list.allocated) {
    throw entryNotAllocated();
  }
}

export const entryStatus = (
  s: StatusListServices,
  tenantId: string,
  list: StoredList,
  index: number,
  value: number,
): EntryStatus => ({
  listId: list.listId,
  index,
  uri: s.uriOf(tenantId, list.listId),
  status: statusNameOf(value, list),
  value,
});
