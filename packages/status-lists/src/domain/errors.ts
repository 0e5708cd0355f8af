import { AppError } from '@tessera/platform';

/** The status-list API's refusals (oauth-style envelope `{error, error_description, field}`; packages/status-lists/README.md). */
export const badInput = (message: string, field: string) => new AppError('invalid_request', message, { field });

export const listNotFound = () => new AppError('not_found', 'No status list with this id in the tenant.');

export const listExists = () =>
  new AppError('already_exists', 'A status list with this id already exists in the tenant.', {
    field: 'statusList.id',
  });

export const entryNotAllocated = () =>
  new AppError('not_found', 'This index of the status list has not been allocated.', { field: 'index' });

export const finalStatus = () =>
  new AppError(
    'conflict',
    'A revoked entry stays revoked: revocation is not reversible (Bitstring Status List §2.1).',
    {
      field: 'status',
    },
  );
