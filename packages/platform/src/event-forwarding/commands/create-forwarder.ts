import { defineCommand, unitFor } from '../../commands/command.js';
import type { ForwarderFormat } from '../domain/stream.js';
import type { EventForwardingService, Forwarder } from '../event-forwarding-service.js';

export const CREATE_FORWARDER = 'platform.event-forwarders.create';

/**
 * Creates a generic event forwarder (001 §6 "a generic event transmitter"): the tenant's audit events as JSON, CEF
 * or OCSF to an HTTP endpoint, over the outbox. Administrators only (`write`); the secret is answered once and
 * never audited (the audit names the forwarder id only).
 */
export const createForwarder = (service: EventForwardingService) =>
  defineCommand<
    { url: string; format: ForwarderFormat; eventTypes?: string[] | undefined },
    { forwarder: Forwarder; secret: string }
  >({
    id: CREATE_FORWARDER,
    access: 'write',
    businessIds: (_input, output): Record<string, string> => (output ? { forwarderId: output.forwarder.id } : {}),
    run: (ctx, input) => service.createForwarder(ctx.tenantId, input, unitFor(ctx)),
  });
