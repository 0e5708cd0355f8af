import { AppError } from '@tessera/platform';

/**
 * Key migration records (000 §2.5, §3.3; issue 5 §6). The specification names the states and the counters and
 * leaves the transitions open; this context's choice (README.md, "Key migration"):
 *
 *   start                     → IN_PROGRESS
 *   IN_PROGRESS → COMPLETED   every record has its new form; the new versions become the tenant's keys (terminal)
 *   IN_PROGRESS → FAILED      the runner stopped on an error, or records lack their new form at the end
 *   FAILED → IN_PROGRESS      resume (also: an IN_PROGRESS migration whose runner stopped is resumed as is)
 *   IN_PROGRESS | FAILED → ROLLED_BACK   the new forms are dropped; the old keys never stopped serving (terminal)
 *
 * At most one migration per tenant is open (IN_PROGRESS or FAILED): a new one starts only after the open one is
 * completed or rolled back.
 */
export type KeyMigrationStatus = 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' | 'ROLLED_BACK';

export const OPEN_MIGRATION_STATUSES: readonly KeyMigrationStatus[] = ['IN_PROGRESS', 'FAILED'];

const TRANSITIONS: Record<KeyMigrationStatus, readonly KeyMigrationStatus[]> = {
  IN_PROGRESS: ['COMPLETED', 'FAILED', 'ROLLED_BACK'],
  FAILED: ['IN_PROGRESS', 'ROLLED_BACK'],
  COMPLETED: [],
  ROLLED_BACK: [],
};

/** The states from which `to` can be reached: the store writes a status only from one of them. */
export const sourcesOf = (to: KeyMigrationStatus): KeyMigrationStatus[] =>
  (Object.keys(TRANSITIONS) as KeyMigrationStatus[]).filter((from) => TRANSITIONS[from].includes(to));

export function assertTransition(from: KeyMigrationStatus, to: KeyMigrationStatus): void {
  if (!TRANSITIONS[from].includes(to))
    throw new AppError('conflict', `A key migration in state ${from} cannot move to ${to}.`);
}

/** Key versions of the tenant's two identity keys. */
export interface KeyVersions {
  dek: number;
  hmac: number;
}

export interface KeyMigrationCounters {
  /** Identities whose records were re-encrypted and re-indexed by the runner. */
  recordsProcessed: number;
  /** Identities whose records could not be opened (the runner leaves them under the old keys). */
  recordsFailed: number;
  /** Identities already under the new keys when visited (written while the migration was open). */
  recordsSkipped: number;
  /** Soft-deleted bindings past their retention, hard-deleted instead of re-encrypted. */
  recordsPurged: number;
}

export interface KeyMigrationRecord extends KeyMigrationCounters {
  id: string;
  tenantId: string;
  status: KeyMigrationStatus;
  from: KeyVersions;
  to: KeyVersions;
  batchSize: number;
  batchesCommitted: number;
  startedAt: string;
  updatedAt: string;
  finishedAt: string | null;
  /** Why the migration failed: an error code and message, never a record's content. */
  error: string | null;
}

export const NO_COUNTS: KeyMigrationCounters = {
  recordsProcessed: 0,
  recordsFailed: 0,
  recordsSkipped: 0,
  recordsPurged: 0,
};

export function addCounts(a: KeyMigrationCounters, b: KeyMigrationCounters): KeyMigrationCounters {
  return {
    recordsProcessed: a.recordsProcessed + b.recordsProcessed,
    recordsFailed: a.recordsFailed + b.recordsFailed,
    recordsSkipped: a.recordsSkipped + b.recordsSkipped,
    recordsPurged: a.recordsPurged + b.recordsPurged,
  };
}
