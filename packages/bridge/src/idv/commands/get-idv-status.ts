import { defineCommand } from '@tessera/platform';
import type { ReconciliationStatus } from '../domain/reconciliation-state.js';
import type { IdvServices } from '../idv-services.js';
import { currentAttempt } from './current-attempt.js';

/**
 * GET /auth/oid4vp/sessions/{sessionId}/idv/status (000 §4.2, §2.4): the latest attempt's reconciliationStatus and,
 * when it is ERROR, its errorMessage (else null). Polled (000 §8: 30 × 2 s), so not audited per call.
 */
export interface IdvStatusOutput {
  reconciliationStatus: ReconciliationStatus;
  errorMessage: string | null;
}

export const getIdvStatus = (idv: IdvServices) =>
  defineCommand<{ sessionId: string }, IdvStatusOutput>({
    id: 'bridge.idv.status',
    access: 'read',
    requiredScope: idv.bridge.config.sessionClientsScope,
    audit: 'self',
    businessIds: (input): Record<string, string> => ({ sessionId: input.sessionId }),
    async run(ctx, { sessionId }) {
      const { attempt } = await currentAttempt(idv, ctx.tenantId, sessionId);
      return {
        reconciliationStatus: attempt.status,
        errorMessage: attempt.status === 'ERROR' ? attempt.errorMessage : null,
      };
    },
  });
