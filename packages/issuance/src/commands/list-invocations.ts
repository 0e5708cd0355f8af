import { defineCommand } from '@tessera/platform';
import { sessionNotFound } from '../domain/errors.js';
import type { IssuanceServices } from '../services.js';
import { invocationStore } from '../storage/invocation-store.js';
import { sessionStore } from '../storage/session-store.js';
import { LIST_INVOCATIONS } from './ids.js';

export interface InvocationView {
  invocation_id: string;
  connector_id: string;
  phase: string;
  mode: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error_kind: string | null;
  last_latency_ms: number | null;
  created_at: string;
  updated_at: string;
}

/**
 * GET /sessions/{correlationId}/invocations (ours; 001 §4.2 asks for the delivery status to be recorded): each
 * connector invocation of the session with its status (invoking, contributed, accepted, failed), attempts, last
 * HTTP status, last error kind and latency. Never a payload or a connector field.
 */
export const listInvocations = (s: IssuanceServices) =>
  defineCommand<{ correlationId: string }, { correlation_id: string; data: InvocationView[] }>({
    id: LIST_INVOCATIONS,
    access: 'read',
    businessIds: (input) => ({ correlationId: input.correlationId }),
    async run(ctx, input) {
      const now = s.clock.now();
      return s.platform.db.withTenant(ctx.tenantId, async (sql) => {
        const session = await sessionStore.getLive(sql, input.correlationId, now);
        if (!session) throw sessionNotFound();
        const rows = await invocationStore.list(sql, session.id);
        return {
          correlation_id: session.correlationId,
          data: rows.map((r) => ({
            invocation_id: r.id,
            connector_id: r.connectorId,
            phase: r.phase,
            mode: r.mode,
            status: r.status,
            attempts: r.attempts,
            last_status_code: r.lastStatusCode,
            last_error_kind: r.lastErrorKind,
            last_latency_ms: r.lastLatencyMs,
            created_at: r.createdAt.toISOString(),
            updated_at: r.updatedAt.toISOString(),
          })),
        };
      });
    },
  });
