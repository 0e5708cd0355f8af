import { defineCommand, unitFor } from '../../commands/command.js';
import type { EventForwardingService } from '../event-forwarding-service.js';
import { streamIds } from './stream-ids.js';

export const VERIFY_STREAM = 'platform.ssf.verify-stream';

/** Sends a verification event to the stream's receiver (SSF 1.0 §8.1.4.2); administrators only. */
export const verifyStream = (service: EventForwardingService) =>
  defineCommand<{ streamId: string; state?: string | undefined }, void>({
    id: VERIFY_STREAM,
    access: 'write',
    businessIds: streamIds,
    run: (ctx, input) => service.verifyStream(ctx.tenantId, input.streamId, input.state, unitFor(ctx)),
  });
