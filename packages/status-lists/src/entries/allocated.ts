import { badInput, entryNotAllocated } from '../domain/errors.js';
import { IndexPermutation } from '../domain/index-permutation.js';
import type { StoredList } from '../storage/list-rows.js';

/** An index past the list is a bad request; one inside it that was never handed out is not found. */
export function checkAllocated(list: StoredList, index: number): void {
  if (index >= list.length) {
    throw badInput(`index ${index} is out of the range of the list (0 to ${list.length - 1}).`, 'index');
  }
  if (IndexPermutation.of(list.permutationKey, list.length).inverse(index) >= list.allocated) {
    throw entryNotAllocated();
  }
}
