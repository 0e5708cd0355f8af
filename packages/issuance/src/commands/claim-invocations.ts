import { randomUUID } from 'node:crypto';
import { defineCommand } from '@tessera/platform';
import type { InvocationBinding } from '../domain/pipeline.js';
import type { IssuanceServices } from '../services.js';
import { bagStore } from '../storage/bag-store.js';
import { invocationStore } from '../storage/invocation-store.js';
import { sessionStore } from '../storage/session-store.js';
import { CLAIM_INVOCATIONS } from './ids.js';

export interface ClaimInvocationsInput {
  correlationId: string;
  awaiting: readonly InvocationBinding[];
}

/** A binding this call claimed, with the input connector fields its request carries (opened from the bag). */
export interface ClaimedInvocation {
  invocationId: string;
  binding: InvocationBinding;
  fields: Record<string, string>;
}

/**
 * Claims the awaited bindings of a live session, one invocation row each (001 §4.2, §6): a binding another replica
 * claimed first is left to it, and a claim left `invoking` past the lease is taken over. The claims commit with the
 * command's audit event (issue 13 §7), so that every invocation row has its event; the outcome of each invocation
 * is another command (record-invocation-outcome.ts). A session gone meanwhile claims nothing.
 */
export const claimInvocations = (s: IssuanceServices) =>
  defineCommand<ClaimInvocationsInput, ClaimedInvocation[]>({
    id: CLAIM_INVOCATIONS,
    // Run by the pipeline itself after an advance, never by a request.
    access: 'public',
    businessIds: (input, output) => ({
      correlationId: input.correlationId,
      ...(output ? { invocationIds: output.map((c) => c.invocationId).join(',') } : {}),
    }),
    async run(ctx, { correlationId, awaiting }) {
      const now = s.clock.now();
      return ctx.unitOfWork(async (sql) => {
        const session = await sessionStore.getLive(sql, correlationId, now);
        if (!session) return [];
        const ids = await invocationStore.claim(
          sql,
          session.id,
          awaiting,
          awaiting.map(() => randomUUID()),
          now,
          new Date(now.getTime() - s.config.connectorCalls.invocationLeaseMs),
        );
        const claimed: ClaimedInvocation[] = [];
        for (const binding of awaiting) {
          const invocationId = ids.get(`${binding.connectorId}\u0000${binding.phase}`);
          if (!invocationId) continue;
          const fields: Record<string, string> = {};
          for (const f of await bagStore.connectorFields(sql, session.id, binding.inputConnectorFields)) {
            const cell = { tenantId: ctx.tenantId, table: 'issuance_session_connector_fields' as const, rowId: f.id };
            fields[f.name] = (await s.sealer.open(session.encryptionMode, cell, f.value, sql)) as string;
          }
          claimed.push({ invocationId, binding, fields });
        }
        return claimed;
      });
    },
  });
