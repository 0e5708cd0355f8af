import { AppError } from '../errors/app-error.js';

/** Aliases are shared by both key tables' rules: visible ASCII, at most 200 characters. */
const ALIAS_PATTERN = /^[\x21-\x7e]{1,200}$/;

export function assertAlias(alias: string): void {
  if (!ALIAS_PATTERN.test(alias))
    throw new AppError('invalid_request', 'A key alias is 1 to 200 visible ASCII characters.', { field: 'alias' });
}

export const unknownAlias = (alias: string) => new AppError('not_found', `No key exists under the alias "${alias}".`);

export const alreadyExists = (alias: string) =>
  new AppError('already_exists', `A key already exists under the alias "${alias}".`);

/** A 500 with a generic message on the wire: the cause (wrong master key, tampered row) is for the operator's log. */
export const sealedKeyUnusable = (alias: string, cause?: unknown) =>
  new AppError(
    'server_error',
    `The private key of "${alias}" cannot be opened with the master key.`,
    cause === undefined ? {} : { cause },
  );

export const toIso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();
