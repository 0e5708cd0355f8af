import { defineCommand, unitFor } from '../../commands/command.js';
import type { EventForwardingService, StreamConfiguration } from '../event-forwarding-service.js';
import { streamIds } from './stream-ids.js';

export const UPDATE_STREAM = 'platform.ssf.update-stream';

/** Changes a stream's endpoint, requested events or description (SSF 1.0 §8.1.1.3); administrators only. */
export const updateStream = (service: EventForwardingService) =>
  defineCommand<
    {
      streamId: string;
      endpointUrl?: string | undefined;
      eventsRequested?: string[] | undefined;
      description?: string | undefined;
    },
    StreamConfiguration
  >({
    id: UPDATE_STREAM,
    access: 'write',
    businessIds: streamIds,
    run: (ctx, { streamId, ...change }) => service.updateStream(ctx.tenantId, streamId, change, unitFor(ctx)),
  });
