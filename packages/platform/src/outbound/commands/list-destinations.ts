import { defineCommand } from '../../commands/command.js';
import type { Destination } from '../domain/delivery.js';
import type { OutboundService } from '../outbound-service.js';

export const LIST_DESTINATIONS = 'platform.webhooks.list-destinations';

/**
 * The tenant's webhook destinations with their circuit state, never their secrets. Administrators only: `write`
 * access is what the role policy grants tenant administrators (platform administrators pass everywhere).
 */
export const listDestinations = (service: OutboundService) =>
  defineCommand<Record<string, never>, Destination[]>({
    id: LIST_DESTINATIONS,
    access: 'write',
    run: (ctx) => service.listDestinations(ctx.tenantId),
  });
