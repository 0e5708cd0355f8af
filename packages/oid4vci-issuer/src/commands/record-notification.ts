import { defineCommand } from '@tessera/platform';
import { vciError } from '../domain/errors.js';
import { sha256 } from '../domain/secrets.js';
import type { Oid4vciServices } from '../services.js';
import { issuanceStore } from '../storage/transaction-store.js';
import { RECORD_NOTIFICATION } from './ids.js';
import { authorizeWallet, type WalletRequest } from './request-credential.js';

const EVENTS = ['credential_accepted', 'credential_failure', 'credential_deleted'] as const;

/**
 * POST /oid4vci/notification (OpenID4VCI 1.0 §11): the wallet tells what became of the credentials of a
 * notification_id of its session; the session moves to OID4VCI_NOTIFICATION_RECEIPT (contract D). 204.
 */
export const recordNotification = (s: Oid4vciServices) =>
  defineCommand<WalletRequest, { event: string }>({
    id: RECORD_NOTIFICATION,
    access: 'public',
    businessIds: (_input, output): Record<string, string> => (output === undefined ? {} : { event: output.event }),
    async run(ctx, request) {
      const access = await authorizeWallet(s, request, request.endpoint.notificationEndpoint);
      const body = request.body as Record<string, unknown> | null;
      const notificationId = body?.notification_id;
      const event = body?.event;
      if (typeof notificationId !== 'string' || notificationId === '')
        throw vciError('invalid_notification_request', 'The notification names its notification_id.');
      if (typeof event !== 'string' || !(EVENTS as readonly string[]).includes(event))
        throw vciError('invalid_notification_request', `event is one of ${EVENTS.join(', ')}.`);
      if (body?.event_description !== undefined && typeof body.event_description !== 'string')
        throw vciError('invalid_notification_request', 'event_description is a string.');
      const tenantId = ctx.tenantId;
      const hash = sha256(notificationId);
      // The event and the session's receipt commit together; the receipt phase's connectors run after the commit.
      await ctx.unitOfWork(async (sql, unit) => {
        const issuance = await issuanceStore.byNotification(sql, hash);
        if (!issuance || issuance.correlationId !== access.correlationId)
          throw vciError('invalid_notification_id', 'No credential of this session has this notification_id.');
        await issuanceStore.recordEvent(sql, hash, event);
        await s.sessions.recordNotification(tenantId, issuance.correlationId, event as (typeof EVENTS)[number], unit);
      });
      return { event };
    },
  });
