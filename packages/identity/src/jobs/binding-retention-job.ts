import type { Clock, Database, JobDefinition, Logger } from '@tessera/platform';
import { hardDeleteExpired, softDeleteInactive, type RetentionCounts } from '../storage/retention-rows.js';

/** 000 §8: inactive binding cleanup every 60 minutes; thresholds 730 days and 30 days. */
export const BINDING_RETENTION_JOB = 'identity.binding-retention';
export const BINDING_RETENTION_INTERVAL_SECONDS = 3600;
export const DEFAULT_INACTIVE_DAYS = 730;
export const DEFAULT_SOFT_DELETE_DAYS = 30;
const DAY_MS = 86_400_000;

export interface BindingRetentionPolicy {
  /** RETENTION_INACTIVE_DAYS: a binding unused this long is soft-deleted. */
  inactiveDays: number;
  /** RETENTION_SOFT_DELETE_DAYS: a binding soft-deleted this long ago is hard-deleted. */
  softDeleteDays: number;
}

export interface BindingRetentionJobOptions extends Partial<BindingRetentionPolicy> {
  db: Database;
  /** The tenants to sweep (the platform's TenantRegistry fits). */
  tenants: { list(): readonly { id: string }[] };
  clock: Clock;
  logger?: Logger;
}

/**
 * Binding retention (000 §3.3): soft-delete bindings whose last use (else creation) is `inactiveDays` old or
 * older, hard-delete bindings soft-deleted `softDeleteDays` ago or longer. Identities themselves are kept (erasure
 * is an explicit request, 000 §4.3 DELETE). One transaction per tenant.
 */
export async function applyBindingRetention(
  db: Database,
  tenantId: string,
  now: Date,
  policy: BindingRetentionPolicy,
): Promise<RetentionCounts> {
  const inactiveBefore = new Date(now.getTime() - policy.inactiveDays * DAY_MS);
  const softDeletedBefore = new Date(now.getTime() - policy.softDeleteDays * DAY_MS);
  return db.withTenant(tenantId, async (sql) => {
    // Hard deletion first: a binding soft-deleted in this run keeps its full retention period.
    const hard = await hardDeleteExpired(sql, softDeletedBefore);
    const soft = await softDeleteInactive(sql, inactiveBefore, now);
    return { ...soft, ...hard };
  });
}

export function bindingRetentionJob(options: BindingRetentionJobOptions): JobDefinition {
  const policy: BindingRetentionPolicy = {
    inactiveDays: options.inactiveDays ?? DEFAULT_INACTIVE_DAYS,
    softDeleteDays: options.softDeleteDays ?? DEFAULT_SOFT_DELETE_DAYS,
  };
  if (!(policy.inactiveDays > 0) || !(policy.softDeleteDays >= 0))
    throw new Error('retention days must be positive (inactive) and non-negative (soft delete)');
  return {
    name: BINDING_RETENTION_JOB,
    intervalSeconds: BINDING_RETENTION_INTERVAL_SECONDS,
    run: async (signal) => {
      const now = options.clock.now();
      let failed = 0;
      for (const tenant of options.tenants.list()) {
        if (signal.aborted) return;
        try {
          const counts = await applyBindingRetention(options.db, tenant.id, now, policy);
          options.logger?.info({ tenant_id: tenant.id, ...counts }, 'binding retention applied');
        } catch (error) {
          failed++;
          options.logger?.warn({ tenant_id: tenant.id, err: error }, 'binding retention failed');
        }
      }
      // One tenant's failure does not hold the others back; the run still reports it.
      if (failed > 0) throw new Error(`binding retention failed for ${failed} tenant(s)`);
    },
  };
}
