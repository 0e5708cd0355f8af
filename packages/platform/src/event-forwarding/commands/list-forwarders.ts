import { defineCommand } from '../../commands/command.js';
import type { EventForwardingService, Forwarder } from '../event-forwarding-service.js';

export const LIST_FORWARDERS = 'platform.event-forwarders.list';

/** The tenant's event forwarders with their circuit state, without secrets; administrators only. */
export const listForwarders = (service: EventForwardingService) =>
  defineCommand<Record<string, never>, Forwarder[]>({
    id: LIST_FORWARDERS,
    access: 'write',
    run: (ctx) => service.listForwarders(ctx.tenantId),
  });
