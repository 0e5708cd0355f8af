import type { JobDefinition } from '../jobs/scheduler.js';
import type { AuditStore } from './audit-store.js';

/**
 * Staged audit events older than this are taken to be orphans: their process died, or lost the database, between
 * the commit of their unit of work and their chaining, which otherwise follows within milliseconds.
 */
export const STAGED_AUDIT_EVENT_ORPHAN_SECONDS = 30;

/** Chains orphaned staged audit events (audit-pending.ts), once across replicas, every 30 seconds. */
export function recoverStagedAuditEventsJob(audit: AuditStore): JobDefinition {
  return {
    name: 'audit.pending.recover',
    intervalSeconds: 30,
    // An event waiting to be chained is no reason to take a replica out of rotation: readiness does not wait on it.
    critical: false,
    run: async () => {
      await audit.recoverPending(STAGED_AUDIT_EVENT_ORPHAN_SECONDS);
    },
  };
}
