import { defineCommand } from '@tessera/platform';
import { allComplete, evaluateCompleteness, requiredPaths } from '../domain/completeness.js';
import { sessionNotFound } from '../domain/errors.js';
import type { IssuanceServices } from '../services.js';
import { bagStore } from '../storage/bag-store.js';
import { sessionStore } from '../storage/session-store.js';
import { EVALUATE_COMPLETENESS } from './ids.js';

export interface CompletenessOutput {
  correlation_id: string;
  status: string;
  complete: boolean;
  credentials: {
    credential_configuration_id: string;
    complete: boolean;
    deferrable: boolean;
    missing_claims: string[];
  }[];
}

/**
 * GET /sessions/{correlationId}/completeness (001 §4.2): per credential binding, complete or the required claims
 * missing. Reads attribute paths only: nothing sealed is opened.
 */
export const evaluateSessionCompleteness = (s: IssuanceServices) =>
  defineCommand<{ correlationId: string }, CompletenessOutput>({
    id: EVALUATE_COMPLETENESS,
    access: 'read',
    businessIds: (input, output) => ({
      correlationId: input.correlationId,
      ...(output ? { complete: String(output.complete) } : {}),
    }),
    async run(ctx, input) {
      const now = s.clock.now();
      return s.platform.db.withTenant(ctx.tenantId, async (sql) => {
        const session = await sessionStore.getLive(sql, input.correlationId, now);
        if (!session) throw sessionNotFound();
        const results = evaluateCompleteness(
          session.pipeline,
          await bagStore.paths(sql, session.id, requiredPaths(session.pipeline)),
        );
        return {
          correlation_id: session.correlationId,
          status: session.state.status,
          complete: allComplete(results),
          credentials: results.map((r) => ({
            credential_configuration_id: r.credentialConfigurationId,
            complete: r.complete,
            deferrable: r.deferrable,
            missing_claims: r.missingClaims,
          })),
        };
      });
    },
  });
