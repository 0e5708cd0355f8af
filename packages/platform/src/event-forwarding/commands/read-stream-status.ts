import { defineCommand } from '../../commands/command.js';
import type { StreamStatus } from '../domain/stream.js';
import type { EventForwardingService } from '../event-forwarding-service.js';
import { streamIds } from './stream-ids.js';

export const READ_STREAM_STATUS = 'platform.ssf.read-status';

/** Reads a stream's status (SSF 1.0 §8.1.2.1); administrators only. */
export const readStreamStatus = (service: EventForwardingService) =>
  defineCommand<{ streamId: string }, { stream_id: string; status: StreamStatus; reason?: string }>({
    id: READ_STREAM_STATUS,
    access: 'write',
    businessIds: streamIds,
    run: (ctx, input) => service.readStatus(ctx.tenantId, input.streamId),
  });
