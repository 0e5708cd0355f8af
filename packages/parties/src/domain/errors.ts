import { AppError, invalidRequest } from '@tessera/platform';

/**
 * The errors of the party API, in the party envelope `{code, message, field?}` (001 §7: 400 for a malformed body,
 * 404 for an absent id; 409 for a duplicate, 403 for the policy: platform errors/envelopes.ts).
 */
export const partyNotFound = (what = 'party') => new AppError('not_found', `No ${what} with this id in the tenant.`);

export const invalidField = (field: string, message: string) => invalidRequest(message, field);

/** A unique value already taken (409 ALREADY_EXISTS_ERROR). */
export const duplicate = (message: string, field?: string) =>
  new AppError('already_exists', message, field === undefined ? {} : { field });

/** A state that refuses the change (409 CONFLICT_ERROR). */
export const conflict = (message: string) => new AppError('conflict', message);
