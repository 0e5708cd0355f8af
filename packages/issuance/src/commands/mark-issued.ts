import { defineCommand } from '@tessera/platform';
import type { IssuanceServices } from '../services.js';
import { MARK_ISSUED } from './ids.js';
import { moveSession } from './move-session.js';
import type { SessionSummary } from './session-view.js';

/**
 * A credential of the session was issued (001 §3): READY → ISSUED. The credential configuration is recorded in
 * the audit event; a second configuration issued from an ISSUED session leaves it ISSUED; any other state is 409.
 */
export const markIssued = (s: IssuanceServices) =>
  defineCommand<{ correlationId: string; credentialConfigurationId: string }, SessionSummary>({
    id: MARK_ISSUED,
    access: 'public',
    businessIds: (input, output) => ({
      correlationId: input.correlationId,
      credentialConfigurationId: input.credentialConfigurationId,
      ...(output ? { status: output.status } : {}),
    }),
    run: (ctx, input) =>
      moveSession(s, ctx, input.correlationId, (state) => (state.status === 'ISSUED' ? [] : [{ type: 'ISSUED' }])),
  });
