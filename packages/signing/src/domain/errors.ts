import { AppError } from '@tessera/platform';

/** The signing API's refusals (002 §7: a default error response; the oauth envelope `{error, error_description}`). */
export const badRequest = (message: string, field?: string) =>
  new AppError('invalid_request', message, field === undefined ? {} : { field });

export const algorithmRefused = (algorithm: string, providerId: string, reason: string) =>
  new AppError(
    'invalid_request',
    `The algorithm ${algorithm} is not available on key provider ${providerId}: ${reason}.`,
    {
      field: 'signatureAlgorithm',
      wireCode: 'unsupported_algorithm',
    },
  );

export const keyEntryNotFound = (kid: string) =>
  new AppError('not_found', `No key entry ${JSON.stringify(kid)} exists.`, { wireCode: 'key_entry_not_found' });

export const providerNotFound = (providerId: string) =>
  new AppError('not_found', `No key provider ${JSON.stringify(providerId)} is configured for this tenant.`, {
    wireCode: 'key_provider_not_found',
  });

export const keyEntryExists = (kid: string) =>
  new AppError('already_exists', `A key entry ${JSON.stringify(kid)} exists already.`, {
    wireCode: 'key_entry_exists',
  });

export const keyAccessDenied = (kid: string) =>
  new AppError('policy_denied', `The caller may not use the key entry ${JSON.stringify(kid)}.`);

export const invalidPdf = (message: string) =>
  new AppError('invalid_request', message, { field: 'origData.content', wireCode: 'invalid_document' });
