import { defineCommand, unitFor } from '../../commands/command.js';
import type { Destination } from '../domain/delivery.js';
import type { OutboundService } from '../outbound-service.js';

export const CREATE_DESTINATION = 'platform.webhooks.create-destination';

/**
 * Registers a webhook destination of the tenant (001 §6); the URL is refused when it names a non-public address.
 * The `whsec_` secret is answered this once and audited never (the audit names the destination id only).
 */
export const createDestination = (service: OutboundService) =>
  defineCommand<
    { url: string; eventTypes?: string[]; enabled?: boolean },
    { destination: Destination; secret: string }
  >({
    id: CREATE_DESTINATION,
    access: 'write',
    businessIds: (_input, output): Record<string, string> => (output ? { destinationId: output.destination.id } : {}),
    run: (ctx, input) => service.createDestination(ctx.tenantId, input, unitFor(ctx)),
  });
