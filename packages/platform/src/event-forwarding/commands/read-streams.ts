import { defineCommand } from '../../commands/command.js';
import type { EventForwardingService, StreamConfiguration } from '../event-forwarding-service.js';
import { streamIds } from './stream-ids.js';

export const READ_STREAMS = 'platform.ssf.read-streams';

/** Reads one stream of the tenant, or all (SSF 1.0 §8.1.1.2); administrators only (`write`). */
export const readStreams = (service: EventForwardingService) =>
  defineCommand<{ streamId?: string | undefined }, StreamConfiguration[]>({
    id: READ_STREAMS,
    access: 'write',
    businessIds: streamIds,
    run: (ctx, input) => service.readStreams(ctx.tenantId, input.streamId),
  });
