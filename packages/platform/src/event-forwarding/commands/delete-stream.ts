import { defineCommand, unitFor } from '../../commands/command.js';
import type { EventForwardingService } from '../event-forwarding-service.js';
import { streamIds } from './stream-ids.js';

export const DELETE_STREAM = 'platform.ssf.delete-stream';

/** Deletes a stream with its destination and pending deliveries (SSF 1.0 §8.1.1.5); administrators only. */
export const deleteStream = (service: EventForwardingService) =>
  defineCommand<{ streamId: string }, void>({
    id: DELETE_STREAM,
    access: 'write',
    businessIds: streamIds,
    run: (ctx, input) => service.deleteStream(ctx.tenantId, input.streamId, unitFor(ctx)),
  });
