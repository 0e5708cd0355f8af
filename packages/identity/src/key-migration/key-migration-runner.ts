import { randomUUID } from 'node:crypto';
import {
  AppError,
  isAppError,
  StagedAuditEvents,
  type AuditLog,
  type AuditStaging,
  type Clock,
  type Database,
  type KeyManager,
  type Logger,
  type Sql,
} from '@tessera/platform';
import { identityDekAlias, identityHmacAlias } from '../domain/key-aliases.js';
import { assertTransition, type KeyMigrationRecord, type KeyVersions } from '../domain/key-migration.js';
import type { TenantUnit } from '../identity-store.js';
import { IdentityCrypto } from '../keys/identity-crypto.js';
import { IdentityForms } from '../keys/identity-forms.js';
import { loadKeyContext } from '../keys/key-context.js';
import {
  advanceMigration,
  insertMigration,
  listMigrations,
  lockMigration,
  openMigration,
  setMigrationStatus,
  type MigrationState,
} from '../storage/key-migration-rows.js';
import { lockKeyContextExclusive, readKeyContext, switchKeyState } from '../storage/key-state-store.js';
import {
  countIncomplete,
  dropNextForms,
  lockRekeyBatch,
  promoteNextForms,
  writeNextForms,
} from '../storage/rekey-rows.js';
import { KEY_MIGRATION_EVENTS, migrationEvent, type AuditContext, type KeyMigrationEvent } from './migration-audit.js';
import { rekeyBatch } from './rekey-batch.js';

export const DEFAULT_MIGRATION_BATCH_SIZE = 500;
const DAY_MS = 86_400_000;
const MAX_ERROR_LENGTH = 500;

export interface KeyMigrationRunnerOptions {
  db: Database;
  keys: KeyManager;
  /** Each transition's event is staged in the transition's transaction, then chained (issue 13 §7). */
  audit: AuditLog & AuditStaging;
  clock: Clock;
  serviceClaim: string;
  /** Identities per batch, each batch in its own transaction (`identity.migration.batchSize`). */
  batchSize?: number;
  /** Soft-deleted bindings older than this are purged instead of re-encrypted (`identity.retention.softDeleteDays`). */
  softDeleteDays?: number;
  logger?: Logger;
  /** Called after each committed batch, with the migration as it now stands (progress; tests stop a runner here). */
  afterBatch?: (progress: KeyMigrationRecord) => void | Promise<void>;
}

export interface RunOptions extends AuditContext {
  /** Aborting stops the runner between batches; the migration stays IN_PROGRESS and resumes where it stopped. */
  signal?: AbortSignal | undefined;
}

/**
 * The key migration (issue 5 §6): rotates the tenant's data-encryption and HMAC keys by re-encrypting and
 * re-indexing every record in batches, each batch in its own transaction with the persisted cursor, so a runner that
 * dies resumes where its last committed batch ended, never processing a record twice. States and transitions:
 * domain/key-migration.ts and README.md.
 */
export class KeyMigrationRunner {
  private readonly crypto: IdentityCrypto;
  private readonly forms: IdentityForms;
  private readonly batchSize: number;
  private readonly softDeleteDays: number;

  constructor(private readonly options: KeyMigrationRunnerOptions) {
    this.crypto = new IdentityCrypto(options.keys);
    this.forms = new IdentityForms(this.crypto, options.serviceClaim);
    this.batchSize = options.batchSize ?? DEFAULT_MIGRATION_BATCH_SIZE;
    this.softDeleteDays = options.softDeleteDays ?? 30;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1)
      throw new Error('batchSize must be a positive integer');
  }

  /** Opens a migration to new key versions and runs it. `conflict` when one is open already. */
  start(tenantId: string, run: RunOptions = {}): Promise<KeyMigrationRecord> {
    return this.exclusive(tenantId, async () => {
      const from = await this.options.db.withTenant(tenantId, async (sql) => {
        const unit = { tenantId, sql };
        if (await openMigration(sql)) throw alreadyOpen();
        return (await loadKeyContext(unit, this.crypto, this.options.clock.now(), 'read')).current;
      });
      // The key manager follows the tenant's key state: its current versions active, the new ones pending.
      await this.activate(tenantId, from);
      const to = {
        dek: (await this.options.keys.addSymmetricVersion(identityDekAlias(tenantId))).version,
        hmac: (await this.options.keys.addSymmetricVersion(identityHmacAlias(tenantId))).version,
      };
      let state: MigrationState;
      try {
        state = await this.transition(tenantId, KEY_MIGRATION_EVENTS.started, run, async (sql) => {
          await lockKeyContextExclusive(sql, tenantId);
          const context = await readKeyContext(sql);
          if ((await openMigration(sql)) || !context || !sameVersions(context.current, from)) throw alreadyOpen();
          const now = this.options.clock.now();
          return insertMigration(sql, { id: randomUUID(), from, to, batchSize: this.batchSize, now });
        });
      } catch (error) {
        // Nothing committed (the migration nor its event): the new versions go back to retired.
        await this.retire(tenantId, to).catch(() => undefined);
        throw error;
      }
      this.options.logger?.info({ migration_id: state.record.id }, 'key migration started');
      return this.drive(tenantId, state, run);
    });
  }

  /** Continues the open migration from its cursor (after a crash, an abort or a failure). */
  resume(tenantId: string, run: RunOptions = {}): Promise<KeyMigrationRecord> {
    return this.exclusive(tenantId, async () => {
      const state = await this.transition(tenantId, KEY_MIGRATION_EVENTS.resumed, run, async (sql) => {
        const open = await openMigration(sql, { lock: true });
        if (!open) throw noOpenMigration();
        if (open.record.status === 'IN_PROGRESS') return open;
        assertTransition(open.record.status, 'IN_PROGRESS');
        const resumed = await setMigrationStatus(sql, open.record.id, 'IN_PROGRESS', { now: this.options.clock.now() });
        return { record: resumed!.record, cursor: open.cursor };
      });
      return this.drive(tenantId, state, run);
    });
  }

  /**
   * Drops the new forms and keeps the old keys (which never stopped serving reads): the open migration becomes
   * ROLLED_BACK and the new key versions are retired. Refused while a runner is active (abort it first).
   */
  rollback(tenantId: string, run: RunOptions = {}): Promise<KeyMigrationRecord> {
    return this.exclusive(tenantId, async () => {
      const state = await this.transition(tenantId, KEY_MIGRATION_EVENTS.rolledBack, run, async (sql) => {
        await lockKeyContextExclusive(sql, tenantId);
        const open = await openMigration(sql, { lock: true });
        if (!open) throw noOpenMigration();
        assertTransition(open.record.status, 'ROLLED_BACK');
        await dropNextForms(sql, open.record.to.hmac);
        const rolledBack = await setMigrationStatus(sql, open.record.id, 'ROLLED_BACK', {
          now: this.options.clock.now(),
          error: open.record.error,
          finished: true,
        });
        return rolledBack!;
      });
      this.options.logger?.info({ migration_id: state.record.id }, 'key migration rolled back');
      // The key manager follows: old versions active, new ones retired. Should this fail, the next start re-syncs
      // it, and meanwhile nothing reads the key manager's "active" flag for these aliases.
      await this.activate(tenantId, state.record.from);
      await this.retire(tenantId, state.record.to);
      return state.record;
    });
  }

  /** The tenant's migrations, newest first. */
  history(tenantId: string, limit = 20): Promise<KeyMigrationRecord[]> {
    return this.options.db.withTenant(tenantId, (sql) => listMigrations(sql, limit));
  }

  private async drive(tenantId: string, start: MigrationState, run: RunOptions): Promise<KeyMigrationRecord> {
    let state = start;
    try {
      for (;;) {
        if (run.signal?.aborted) {
          this.options.logger?.info({ migration_id: state.record.id }, 'key migration paused');
          return state.record;
        }
        const step = await this.options.db.withTenant(tenantId, (sql) => this.batch({ tenantId, sql }, state));
        if (!step) break;
        state = step;
        await this.options.afterBatch?.(state.record);
      }
      return await this.finish(tenantId, state, run);
    } catch (error) {
      await this.fail(tenantId, state, describe(error), run);
      throw error;
    }
  }

  /** One batch in the caller's transaction; null when no identity is left after the cursor. */
  private async batch(unit: TenantUnit, expected: MigrationState): Promise<MigrationState | null> {
    const current = await lockMigration(unit.sql, expected.record.id);
    if (current?.record.status !== 'IN_PROGRESS' || current.cursor !== expected.cursor)
      throw new AppError('conflict', 'The key migration changed under its runner.');
    const rows = await lockRekeyBatch(unit.sql, current.cursor, current.record.batchSize);
    const last = rows.identities.at(-1);
    if (!last) return null;
    const now = this.options.clock.now();
    const purgeBefore = new Date(now.getTime() - this.softDeleteDays * DAY_MS);
    const outcome = await rekeyBatch(unit, this.forms, current.record.to, rows, purgeBefore);
    await writeNextForms(unit.sql, outcome.writes);
    return advanceMigration(unit.sql, current.record.id, outcome.counts, last.internal_identity_id, now);
  }

  /**
   * Completion, once the pass has reached the end. Every record must have its form under the new keys: then the
   * key manager activates the new versions, and one transaction promotes the new forms, drops the old index rows
   * and switches the tenant's key state. Otherwise the migration is FAILED (resume after repairing, or roll back).
   */
  private async finish(tenantId: string, state: MigrationState, run: RunOptions): Promise<KeyMigrationRecord> {
    const incomplete = await this.options.db.withTenant(tenantId, (sql) => countIncomplete(sql));
    if (incomplete > 0)
      return this.fail(tenantId, state, `incomplete: ${incomplete} records remain under the old keys`, run);
    await this.activate(tenantId, state.record.to);
    const done = await this.transition(tenantId, KEY_MIGRATION_EVENTS.completed, run, async (sql) => {
      await lockKeyContextExclusive(sql, tenantId);
      if ((await countIncomplete(sql)) > 0) return null;
      await promoteNextForms(sql, state.record.from.hmac);
      const now = this.options.clock.now();
      const completed = await setMigrationStatus(sql, state.record.id, 'COMPLETED', { now, finished: true });
      if (!completed) throw new AppError('conflict', 'The key migration changed under its runner.');
      await switchKeyState(sql, state.record.to, now);
      return completed;
    });
    if (!done) return this.fail(tenantId, state, 'incomplete: records remain under the old keys', run);
    this.options.logger?.info({ migration_id: done.record.id }, 'key migration completed');
    return done.record;
  }

  /** Best effort: with the database gone the migration stays IN_PROGRESS, which a resume handles the same way. */
  private async fail(
    tenantId: string,
    state: MigrationState,
    error: string,
    run: RunOptions,
  ): Promise<KeyMigrationRecord> {
    try {
      const failed = await this.transition(tenantId, KEY_MIGRATION_EVENTS.failed, run, (sql) =>
        setMigrationStatus(sql, state.record.id, 'FAILED', { now: this.options.clock.now(), error }),
      );
      if (!failed) return state.record;
      this.options.logger?.warn({ migration_id: state.record.id, reason: error }, 'key migration failed');
      return failed.record;
    } catch {
      return state.record;
    }
  }

  private async activate(tenantId: string, versions: KeyVersions): Promise<void> {
    await this.options.keys.activateSymmetricVersion(identityDekAlias(tenantId), versions.dek);
    await this.options.keys.activateSymmetricVersion(identityHmacAlias(tenantId), versions.hmac);
  }

  private async retire(tenantId: string, versions: KeyVersions): Promise<void> {
    await this.options.keys.retireSymmetricVersion(identityDekAlias(tenantId), versions.dek);
    await this.options.keys.retireSymmetricVersion(identityHmacAlias(tenantId), versions.hmac);
  }

  /**
   * A transition in one transaction of the tenant with its event staged in it: the two commit together, or neither
   * (issue 13 §7); the event is chained once committed. `fn` answers null when it changed nothing (no event).
   */
  private async transition<R extends { record: KeyMigrationRecord } | null>(
    tenantId: string,
    type: KeyMigrationEvent,
    run: RunOptions,
    fn: (sql: Sql) => Promise<R>,
  ): Promise<R> {
    const events = new StagedAuditEvents(this.options.audit);
    const state = await this.options.db.withTenant(tenantId, async (sql) => {
      const changed = await fn(sql);
      if (changed !== null) await events.stage(sql, migrationEvent(type, changed.record, run));
      return changed;
    });
    await events.chain();
    return state;
  }

  /** One runner per tenant across replicas (a session advisory lock), so that no batch is ever run twice. */
  private async exclusive<T>(tenantId: string, fn: () => Promise<T>): Promise<T> {
    const outcome = await this.options.db.withAdvisoryLock(`identity-key-migration:${tenantId}`, fn);
    if (!outcome.ran) throw new AppError('conflict', 'A key migration runner is active for this tenant.');
    return outcome.value;
  }
}

const sameVersions = (a: KeyVersions, b: KeyVersions) => a.dek === b.dek && a.hmac === b.hmac;

const alreadyOpen = () =>
  new AppError('conflict', 'A key migration is open for this tenant (IN_PROGRESS or FAILED): resume or roll it back.');

const noOpenMigration = () => new AppError('not_found', 'No key migration is open for this tenant.');

/** The stored reason: a code and our own message, never a driver's detail (which may quote values). */
function describe(error: unknown): string {
  const text = isAppError(error)
    ? `${error.code}: ${error.message}`
    : `error: ${(error as Error)?.message ?? String(error)}`;
  return text.slice(0, MAX_ERROR_LENGTH);
}
