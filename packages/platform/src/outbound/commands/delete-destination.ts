import { defineCommand, unitFor } from '../../commands/command.js';
import type { OutboundService } from '../outbound-service.js';

export const DELETE_DESTINATION = 'platform.webhooks.delete-destination';

/** Removes a destination and its deliveries (pending ones are not sent); 404 when the tenant has no such one. */
export const deleteDestination = (service: OutboundService) =>
  defineCommand<{ destinationId: string }, void>({
    id: DELETE_DESTINATION,
    access: 'write',
    businessIds: (input) => ({ destinationId: input.destinationId }),
    run: (ctx, input) => service.deleteDestination(ctx.tenantId, input.destinationId, unitFor(ctx)),
  });
