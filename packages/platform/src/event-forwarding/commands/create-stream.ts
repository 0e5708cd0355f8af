import { defineCommand, unitFor } from '../../commands/command.js';
import type { EventForwardingService, StreamConfiguration } from '../event-forwarding-service.js';

export const CREATE_STREAM = 'platform.ssf.create-stream';

/**
 * Creates an SSF stream for the calling receiver (SSF 1.0 §8.1.1.1). Like every stream command it needs `write`
 * access (tenant and platform administrators): a stream sends the tenant's audit trail out. Audited by the bus
 * with the stream id only, never the endpoint URL.
 */
export const createStream = (service: EventForwardingService) =>
  defineCommand<
    { endpointUrl: string; eventsRequested: string[]; description?: string | undefined },
    StreamConfiguration
  >({
    id: CREATE_STREAM,
    access: 'write',
    businessIds: (_input, output): Record<string, string> => (output ? { streamId: output.stream_id } : {}),
    run: (ctx, input) => service.createStream(ctx.tenantId, ctx.principal, input, unitFor(ctx)),
  });
