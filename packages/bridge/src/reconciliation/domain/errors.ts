import { AppError } from '@tessera/platform';

/** The errors of the external reconciliation API (000 §7), in the `{error, error_description}` envelope. */
export const identityNotFound = () =>
  new AppError('not_found', 'No identity matches.', { wireCode: 'identity_not_found' });

export const auxiliaryNotFound = () =>
  new AppError('not_found', 'No auxiliary data is stored under this category.', { wireCode: 'auxiliary_not_found' });

export const categoryNotAllowed = () =>
  new AppError('policy_denied', 'The category is outside the projection of this client.', {
    wireCode: 'category_not_allowed',
  });

export const dataTooLarge = (limit: number) =>
  new AppError('payload_too_large', `The auxiliary data exceeds ${limit} bytes.`, { wireCode: 'data_too_large' });

export const insufficientScope = (message: string, challenge: string) =>
  new AppError('insufficient_scope', message, { headers: { 'www-authenticate': challenge } });

/** 401 invalid_token (000 §7) with the challenge of the scheme the client used (RFC 6750 §3, RFC 9449 §7.1). */
export const invalidToken = (message: string, challenge: string) =>
  new AppError('invalid_token', message, { headers: { 'www-authenticate': challenge } });
