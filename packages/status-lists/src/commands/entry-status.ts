import type { StatusListServices } from '../services.js';
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
