import { AppError, canonicalJson } from '@tessera/platform';
import { dataTooLarge } from './errors.js';

/**
 * Auxiliary data records (000 §2.6, §3.3, §8): a JSON object stored as its canonical JSON (keys sorted, no
 * whitespace: platform canonicalJson), at most 64 KB, measured on exactly the bytes stored, i.e. the UTF-8 of that
 * canonical text. 65 536 bytes are accepted, 65 537 refused (413 data_too_large). Pure.
 */
export const MAX_AUXILIARY_BYTES = 65_536;

export interface AuxiliaryRecord {
  category: string;
  /** Canonical JSON text of the data object. */
  canonical: string;
  storedBy: string;
  storedAt: Date;
  expiresAt: Date | null;
}

/** The canonical text of `data`, refused when it is not an object or is over the limit. */
export function canonicalAuxiliaryData(data: unknown): string {
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new AppError('invalid_request', 'data must be a JSON object.', { field: 'data' });
  let canonical: string;
  try {
    canonical = canonicalJson(data);
  } catch {
    // A number beyond the double range (JSON.parse reads 1e400 as Infinity) has no JSON form to store.
    throw new AppError('invalid_request', 'data holds a number that cannot be stored.', { field: 'data' });
  }
  if (Buffer.byteLength(canonical, 'utf8') > MAX_AUXILIARY_BYTES) throw dataTooLarge(MAX_AUXILIARY_BYTES);
  return canonical;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * expiresAt (000 §2.6): an ISO 8601 date-time with a time zone, later than now (decision: a record that would be
 * expired at once is refused rather than stored and then never shown). Absent: never expires.
 */
export function parseExpiresAt(value: string | undefined, now: Date): Date | null {
  if (value === undefined) return null;
  const at = ISO_8601.test(value) ? new Date(value) : null;
  if (!at || Number.isNaN(at.getTime()))
    throw new AppError('invalid_request', 'expiresAt must be an ISO 8601 date-time with a time zone.', {
      field: 'expiresAt',
    });
  if (at.getTime() <= now.getTime())
    throw new AppError('invalid_request', 'expiresAt must be in the future.', { field: 'expiresAt' });
  return at;
}

/** A record is live until its expiry (after it, it is gone for every read, cleanup or not). */
export const isLive = (expiresAt: Date | null, now: Date) => expiresAt === null || expiresAt.getTime() > now.getTime();
