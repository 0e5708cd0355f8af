import Type from 'typebox';
import type { FastifyReply } from 'fastify';
import { AppError } from '../../errors/index.js';
import { TENANT_ID_PATTERN } from '../../db/database.js';
import { commandContext } from '../../http/types.js';
import type { RoleApp } from '../../http/create-app.js';
import type { Platform } from '../../platform.js';
import { createStream } from '../commands/create-stream.js';
import { deleteStream } from '../commands/delete-stream.js';
import { readStreamStatus } from '../commands/read-stream-status.js';
import { readStreams } from '../commands/read-streams.js';
import { updateStreamStatus } from '../commands/update-stream-status.js';
import { updateStream } from '../commands/update-stream.js';
import { verifyStream } from '../commands/verify-stream.js';
import { STREAM_STATUSES } from '../domain/stream.js';
import { PUSH_DELIVERY_METHOD, type EventForwardingService } from '../event-forwarding-service.js';

const UUID = Type.String({ format: 'uuid' });
const URI = Type.String({ minLength: 1, maxLength: 300, pattern: '^[A-Za-z][A-Za-z0-9+.-]*:[^\\s]+$' });
const EVENTS = Type.Array(URI, { maxItems: 50 });
const DESCRIPTION = Type.String({ maxLength: 500 });

const Delivery = Type.Object(
  {
    // Push (RFC 8935) is the one method offered; a poll request is refused by the schema (400).
    method: Type.Literal(PUSH_DELIVERY_METHOD),
    endpoint_url: Type.String({ minLength: 1, maxLength: 2048 }),
  },
  { additionalProperties: false },
);

const CreateBody = Type.Object(
  { delivery: Delivery, events_requested: Type.Optional(EVENTS), description: Type.Optional(DESCRIPTION) },
  { additionalProperties: false },
);

/** SSF 1.0 §8.1.1.3: the Transmitter-supplied members may be sent back as they were and are ignored. */
const UpdateBody = Type.Object(
  {
    stream_id: UUID,
    delivery: Type.Optional(Delivery),
    events_requested: Type.Optional(EVENTS),
    description: Type.Optional(DESCRIPTION),
    iss: Type.Optional(Type.String({ maxLength: 2048 })),
    aud: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Array(Type.String({ maxLength: 2048 }))])),
    events_supported: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 50 })),
    events_delivered: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 50 })),
  },
  { additionalProperties: false },
);

const StreamQuery = Type.Object({ stream_id: Type.Optional(UUID) }, { additionalProperties: false });
const RequiredStreamQuery = Type.Object({ stream_id: UUID }, { additionalProperties: false });
const StatusBody = Type.Object(
  {
    stream_id: UUID,
    status: Type.Union(STREAM_STATUSES.map((s) => Type.Literal(s))),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
const VerifyBody = Type.Object(
  { stream_id: UUID, state: Type.Optional(Type.String({ maxLength: 500 })) },
  { additionalProperties: false },
);
const TenantParams = Type.Object(
  { tenantId: Type.String({ minLength: 1, maxLength: 63 }) },
  { additionalProperties: false },
);

const managed = { family: 'platform' } as const;
const published = { family: 'platform', auth: 'none', tenant: 'none' } as const;

/**
 * The SSF transmitter (OpenID Shared Signals Framework 1.0) on the token service's internal port: per tenant, the
 * transmitter metadata (§7.1, at the well-known URI with the issuer's path, §7.1.1) and the key set the SETs are
 * signed with (the tenant's audit key), both public; the stream management API (§8.1), for tenant and platform
 * administrators, the tenant from their bearer token. Errors in the platform envelope.
 */
export function registerSsfRoutes(app: RoleApp, platform: Platform, service: EventForwardingService): void {
  const bus = platform.commands;
  const commands = {
    create: createStream(service),
    read: readStreams(service),
    update: updateStream(service),
    remove: deleteStream(service),
    readStatus: readStreamStatus(service),
    updateStatus: updateStreamStatus(service),
    verify: verifyStream(service),
  };

  /** A tenant named in a public path: answered as absent unless it is one we serve (no probing of ids). */
  const servedTenant = (tenantId: string): string => {
    if (!TENANT_ID_PATTERN.test(tenantId) || !platform.tenants.get(tenantId))
      throw new AppError('not_found', 'No such transmitter.');
    return tenantId;
  };
  const publicDocument = (reply: FastifyReply, body: unknown) => {
    reply.header('cache-control', 'public, max-age=300');
    return body;
  };

  app.get(
    '/.well-known/ssf-configuration/ssf/:tenantId',
    { config: published, schema: { params: TenantParams, tags: ['ssf'], summary: 'SSF transmitter metadata.' } },
    async (request, reply) => publicDocument(reply, service.metadata(servedTenant(request.params.tenantId))),
  );

  app.get(
    '/ssf/:tenantId/jwks.json',
    { config: published, schema: { params: TenantParams, tags: ['ssf'], summary: 'Keys that sign the SETs.' } },
    async (request, reply) => publicDocument(reply, await service.jwks(servedTenant(request.params.tenantId))),
  );

  app.post(
    '/ssf/streams',
    { config: managed, schema: { body: CreateBody, tags: ['ssf'], summary: 'Create a stream (SSF 1.0 §8.1.1.1).' } },
    async (request, reply) => {
      const body = request.body;
      const created = await bus.execute(commands.create, commandContext(request), {
        endpointUrl: body.delivery.endpoint_url,
        eventsRequested: body.events_requested ?? [],
        ...(body.description === undefined ? {} : { description: body.description }),
      });
      reply.header('cache-control', 'no-store');
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/ssf/streams',
    { config: managed, schema: { querystring: StreamQuery, tags: ['ssf'], summary: 'Read streams (§8.1.1.2).' } },
    async (request) => {
      const streamId = request.query.stream_id;
      const streams = await bus.execute(commands.read, commandContext(request), { streamId });
      // One stream by its id, else the list of the tenant's streams.
      return streamId === undefined ? streams : streams[0];
    },
  );

  app.patch(
    '/ssf/streams',
    { config: managed, schema: { body: UpdateBody, tags: ['ssf'], summary: 'Update a stream (§8.1.1.3).' } },
    async (request) => {
      const body = request.body;
      return bus.execute(commands.update, commandContext(request), {
        streamId: body.stream_id,
        endpointUrl: body.delivery?.endpoint_url,
        eventsRequested: body.events_requested,
        description: body.description,
      });
    },
  );

  app.delete(
    '/ssf/streams',
    {
      config: managed,
      schema: { querystring: RequiredStreamQuery, tags: ['ssf'], summary: 'Delete a stream (§8.1.1.5).' },
    },
    async (request, reply) => {
      await bus.execute(commands.remove, commandContext(request), { streamId: request.query.stream_id });
      return reply.code(204).send();
    },
  );

  app.get(
    '/ssf/status',
    {
      config: managed,
      schema: { querystring: RequiredStreamQuery, tags: ['ssf'], summary: 'Read a stream status (§8.1.2.1).' },
    },
    async (request) => bus.execute(commands.readStatus, commandContext(request), { streamId: request.query.stream_id }),
  );

  app.post(
    '/ssf/status',
    { config: managed, schema: { body: StatusBody, tags: ['ssf'], summary: 'Update a stream status (§8.1.2.2).' } },
    async (request) =>
      bus.execute(commands.updateStatus, commandContext(request), {
        streamId: request.body.stream_id,
        status: request.body.status,
        reason: request.body.reason,
      }),
  );

  app.post(
    '/ssf/verify',
    {
      config: managed,
      schema: { body: VerifyBody, tags: ['ssf'], summary: 'Request a verification event (§8.1.4.2).' },
    },
    async (request, reply) => {
      await bus.execute(commands.verify, commandContext(request), {
        streamId: request.body.stream_id,
        state: request.body.state,
      });
      return reply.code(204).send();
    },
  );
}
