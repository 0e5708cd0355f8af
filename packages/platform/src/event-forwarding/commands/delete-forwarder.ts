import { defineCommand, unitFor } from '../../commands/command.js';
import type { EventForwardingService } from '../event-forwarding-service.js';

export const DELETE_FORWARDER = 'platform.event-forwarders.delete';

/** Deletes a forwarder with its destination and pending deliveries; administrators only. */
export const deleteForwarder = (service: EventForwardingService) =>
  defineCommand<{ forwarderId: string }, void>({
    id: DELETE_FORWARDER,
    access: 'write',
    businessIds: (input): Record<string, string> => ({ forwarderId: input.forwarderId }),
    run: (ctx, input) => service.deleteForwarder(ctx.tenantId, input.forwarderId, unitFor(ctx)),
  });
