/** Shared row helpers: timestamps leave the database as Date (both engines) and the API shows ISO strings. */
export const iso = (value: unknown): string =>
  value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();

/** SQLSTATE of a unique-constraint violation. */
export const UNIQUE_VIOLATION = '23505';
export const isUniqueViolation = (error: unknown) => (error as { code?: unknown }).code === UNIQUE_VIOLATION;
