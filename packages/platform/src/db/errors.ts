import { AppError, isAppError } from '../errors/index.js';

/**
 * Maps driver errors to the error model at the adapter, keeping the cause: a unique violation is a duplicate,
 * a lost or refused connection is 503 (never a 401 or an `active: false`: security checklist, faults).
 */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

export function isConnectionError(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && (CONNECTION_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  const m = e.message ?? '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED|database unavailable/i.test(
    m,
  );
}

export function mapDatabaseError(error: unknown): unknown {
  if (isAppError(error)) return error;
  const e = error as { code?: string } | null;
  if (e?.code === '23505') return new AppError('already_exists', 'The resource already exists.', { cause: error });
  if (e?.code === '42501' || (e?.code === '23514' && /row-level security/i.test(String((error as Error).message)))) {
    // Row-level security refused a cross-tenant write: surfaced as not found, never as a hint of the other tenant.
    return new AppError('not_found', 'The resource does not exist.', { cause: error });
  }
  if (isConnectionError(error))
    return new AppError('service_unavailable', 'The database is unavailable.', { cause: error });
  return error;
}
