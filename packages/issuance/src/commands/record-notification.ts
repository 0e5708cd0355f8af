import { defineCommand } from '@tessera/platform';
import { phaseIndex } from '../domain/phases.js';
import type { IssuanceServices } from '../services.js';
import { RECORD_NOTIFICATION } from './ids.js';
import { moveSession } from './move-session.js';
import type { SessionSummary } from './session-view.js';

export type NotificationEvent = 'credential_accepted' | 'credential_failure' | 'credential_deleted';

const RECEIPT = 'OID4VCI_NOTIFICATION_RECEIPT' as const;

/**
 * The wallet's notification (OpenID4VCI 1.0 §11): the session enters OID4VCI_NOTIFICATION_RECEIPT (once; later
 * notifications leave it there) and the event is recorded in the audit event. Connectors bound to that phase are
 * invoked by the session port afterwards.
 */
export const recordNotification = (s: IssuanceServices) =>
  defineCommand<{ correlationId: string; event: NotificationEvent }, SessionSummary>({
    id: RECORD_NOTIFICATION,
    access: 'public',
    businessIds: (input) => ({ correlationId: input.correlationId, event: input.event }),
    run: (ctx, input) =>
      moveSession(s, ctx, input.correlationId, (state) =>
        phaseIndex(state.phase) < phaseIndex(RECEIPT) ? [{ type: 'ENTER_PHASE', phase: RECEIPT }] : [],
      ),
  });
