import { defineCommand, unitFor } from '../../commands/command.js';
import type { StreamStatus } from '../domain/stream.js';
import type { EventForwardingService } from '../event-forwarding-service.js';
import { streamIds } from './stream-ids.js';

export const UPDATE_STREAM_STATUS = 'platform.ssf.update-status';

/** Enables, pauses or disables a stream (SSF 1.0 §8.1.2.2); administrators only. */
export const updateStreamStatus = (service: EventForwardingService) =>
  defineCommand<
    { streamId: string; status: StreamStatus; reason?: string | undefined },
    { stream_id: string; status: StreamStatus; reason?: string }
  >({
    id: UPDATE_STREAM_STATUS,
    access: 'write',
    businessIds: streamIds,
    run: (ctx, input) => service.updateStatus(ctx.tenantId, input.streamId, input.status, input.reason, unitFor(ctx)),
  });
