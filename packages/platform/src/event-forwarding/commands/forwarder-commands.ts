import { defineCommand } from '../../commands/command.js';
import type { ForwarderFormat } from '../domain/stream.js';
import type { EventForwardingService, Forwarder } from '../event-forwarding-service.js';

/**
 * Generic event forwarders (001 §6 "a generic event transmitter"): the tenant's audit events as JSON, CEF or OCSF
 * to an HTTP endpoint, over the outbox. Administrators only (`write`); the secret is answered once and never
 * audited (the audit names the forwarder id only).
 */
export const CREATE_FORWARDER = 'platform.event-forwarders.create';
export const LIST_FORWARDERS = 'platform.event-forwarders.list';
export const DELETE_FORWARDER = 'platform.event-forwarders.delete';

export const createForwarder = (service: EventForwardingService) =>
  defineCommand<
    { url: string; format: ForwarderFormat; eventTypes?: string[] | undefined },
    { forwarder: Forwarder; secret: string }
  >({
    id: CREATE_FORWARDER,
    access: 'write',
    businessIds: (_input, output): Record<string, string> => (output ? { forwarderId: output.forwarder.id } : {}),
    run: (ctx, input) => service.createForwarder(ctx.tenantId, input),
  });

export const listForwarders = (service: EventForwardingService) =>
  defineCommand<Record<string, never>, Forwarder[]>({
    id: LIST_FORWARDERS,
    access: 'write',
    run: (ctx) => service.listForwarders(ctx.tenantId),
  });

export const deleteForwarder = (service: EventForwardingService) =>
  defineCommand<{ forwarderId: string }, void>({
    id: DELETE_FORWARDER,
    access: 'write',
    businessIds: (input): Record<string, string> => ({ forwarderId: input.forwarderId }),
    run: (ctx, input) => service.deleteForwarder(ctx.tenantId, input.forwarderId),
  });
