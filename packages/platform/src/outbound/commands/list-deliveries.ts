import { defineCommand } from '../../commands/command.js';
import { AppError } from '../../errors/index.js';
import type { Delivery, DeliveryStatus } from '../domain/delivery.js';
import type { OutboundService } from '../outbound-service.js';

export const LIST_DELIVERIES = 'platform.webhooks.list-deliveries';

/** Opaque cursor: the (createdAt, id) of the last row of the previous page. */
export const encodeCursor = (d: Delivery) => Buffer.from(JSON.stringify([d.createdAt, d.id])).toString('base64url');

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (
      typeof createdAt === 'string' &&
      !Number.isNaN(Date.parse(createdAt)) &&
      typeof id === 'string' &&
      /^[0-9a-f-]{36}$/.test(id)
    )
      return { createdAt, id };
  } catch {
    // answered below
  }
  throw new AppError('invalid_request', 'The cursor is not valid.', { field: 'cursor' });
}

/**
 * Webhook delivery status of the tenant (001 §4.5), newest first, a keyset page at a time. Administrators only
 * (`write` access: tenant administrators under the role policy, and platform administrators).
 */
export const listDeliveries = (service: OutboundService) =>
  defineCommand<
    { destinationId?: string; status?: DeliveryStatus; limit: number; cursor?: string },
    { data: Delivery[]; nextCursor: string | null }
  >({
    id: LIST_DELIVERIES,
    access: 'write',
    async run(ctx, input) {
      const data = await service.listDeliveries(ctx.tenantId, {
        limit: input.limit,
        ...(input.destinationId === undefined ? {} : { destinationId: input.destinationId }),
        ...(input.status === undefined ? {} : { status: input.status }),
        ...(input.cursor === undefined ? {} : { after: decodeCursor(input.cursor) }),
      });
      return { data, nextCursor: data.length === input.limit ? encodeCursor(data[data.length - 1]!) : null };
    },
  });
