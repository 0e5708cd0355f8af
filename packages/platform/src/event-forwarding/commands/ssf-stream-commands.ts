import { defineCommand } from '../../commands/command.js';
import type { StreamStatus } from '../domain/stream.js';
import type { EventForwardingService, StreamConfiguration } from '../event-forwarding-service.js';

/**
 * SSF stream management (SSF 1.0 §8.1) as commands, one per use case; the command id is the policy action. All
 * need `write` access (tenant administrators, platform administrators): a stream sends the tenant's audit trail
 * out, and its configuration names where. Audited by the bus with the stream id only, never the endpoint URL.
 */
export const CREATE_STREAM = 'platform.ssf.create-stream';
export const READ_STREAMS = 'platform.ssf.read-streams';
export const UPDATE_STREAM = 'platform.ssf.update-stream';
export const DELETE_STREAM = 'platform.ssf.delete-stream';
export const READ_STREAM_STATUS = 'platform.ssf.read-status';
export const UPDATE_STREAM_STATUS = 'platform.ssf.update-status';
export const VERIFY_STREAM = 'platform.ssf.verify-stream';

const streamIds = (input: { streamId?: string | undefined }): Record<string, string> =>
  input.streamId === undefined ? {} : { streamId: input.streamId };

export const createStream = (service: EventForwardingService) =>
  defineCommand<
    { endpointUrl: string; eventsRequested: string[]; description?: string | undefined },
    StreamConfiguration
  >({
    id: CREATE_STREAM,
    access: 'write',
    businessIds: (_input, output): Record<string, string> => (output ? { streamId: output.stream_id } : {}),
    run: (ctx, input) => service.createStream(ctx.tenantId, ctx.principal, input),
  });

export const readStreams = (service: EventForwardingService) =>
  defineCommand<{ streamId?: string | undefined }, StreamConfiguration[]>({
    id: READ_STREAMS,
    access: 'write',
    businessIds: streamIds,
    run: (ctx, input) => service.readStreams(ctx.tenantId, input.streamId),
  });

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
    run: (ctx, { streamId, ...change }) => service.updateStream(ctx.tenantId, streamId, change),
  });

export const deleteStream = (service: EventForwardingService) =>
  defineCommand<{ streamId: string }, void>({
    id: DELETE_STREAM,
    access: 'write',
    businessIds: streamIds,
    run: (ctx, input) => service.deleteStream(ctx.tenantId, input.streamId),
  });

export const readStreamStatus = (service: EventForwardingService) =>
  defineCommand<{ streamId: string }, { stream_id: string; status: StreamStatus; reason?: string }>({
    id: READ_STREAM_STATUS,
    access: 'write',
    businessIds: streamIds,
    run: (ctx, input) => service.readStatus(ctx.tenantId, input.streamId),
  });

export const updateStreamStatus = (service: EventForwardingService) =>
  defineCommand<
    { streamId: string; status: StreamStatus; reason?: string | undefined },
    { stream_id: string; status: StreamStatus; reason?: string }
  >({
    id: UPDATE_STREAM_STATUS,
    access: 'write',
    businessIds: streamIds,
    run: (ctx, input) => service.updateStatus(ctx.tenantId, input.streamId, input.status, input.reason),
  });

export const verifyStream = (service: EventForwardingService) =>
  defineCommand<{ streamId: string; state?: string | undefined }, void>({
    id: VERIFY_STREAM,
    access: 'write',
    businessIds: streamIds,
    run: (ctx, input) => service.verifyStream(ctx.tenantId, input.streamId, input.state),
  });
