import Type from 'typebox';
import { commandContext } from '../../http/types.js';
import type { RoleApp } from '../../http/create-app.js';
import type { Platform } from '../../platform.js';
import { createDestination } from '../commands/create-destination.js';
import { deleteDestination } from '../commands/delete-destination.js';
import { listDeliveries } from '../commands/list-deliveries.js';
import { listDestinations } from '../commands/list-destinations.js';
import { DELIVERY_STATUSES } from '../domain/delivery.js';
import { outboundService, type OutboundService } from '../outbound-service.js';

const UUID = Type.String({ format: 'uuid' });
const EVENT_TYPE = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._:-]+$' });

const CreateDestinationBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'https URL that receives the POSTs.' }),
    eventTypes: Type.Optional(
      Type.Array(EVENT_TYPE, { maxItems: 100, description: 'Event types delivered; all when empty or absent.' }),
    ),
    enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);

const DestinationParams = Type.Object({ destinationId: UUID }, { additionalProperties: false });

const DeliveriesQuery = Type.Object(
  {
    destination: Type.Optional(UUID),
    status: Type.Optional(Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s)))),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 300, pattern: '^[A-Za-z0-9_-]+$' })),
  },
  { additionalProperties: false },
);

const config = { family: 'platform' } as const;

/**
 * The webhook API (001 §4.5 "webhook delivery status", §6 webhooks): destinations of the caller's tenant (the
 * tenant from the token) and the status of their deliveries, for tenant and platform administrators. Each route
 * is a schema and one command (`platform.webhooks.*`, audited by the bus without the secret or any payload).
 * `service` defaults to the platform's one (outboundService), whose options decide the SSRF allow-list.
 */
export function registerWebhookRoutes(
  app: RoleApp,
  platform: Platform,
  service: OutboundService = outboundService(platform),
): void {
  const bus = platform.commands;
  const commands = {
    create: createDestination(service),
    list: listDestinations(service),
    remove: deleteDestination(service),
    deliveries: listDeliveries(service),
  };

  app.post(
    '/api/v1/webhooks/destinations',
    {
      config,
      schema: { body: CreateDestinationBody, tags: ['webhooks'], summary: 'Register a webhook destination.' },
    },
    async (request, reply) => {
      const created = await bus.execute(commands.create, commandContext(request), request.body);
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ ...created.destination, secret: created.secret });
    },
  );

  app.get(
    '/api/v1/webhooks/destinations',
    {
      config,
      schema: {
        querystring: Type.Object({}, { additionalProperties: false }),
        tags: ['webhooks'],
        summary: 'List the webhook destinations of the tenant.',
      },
    },
    async (request) => ({ data: await bus.execute(commands.list, commandContext(request), {}) }),
  );

  app.delete(
    '/api/v1/webhooks/destinations/:destinationId',
    { config, schema: { params: DestinationParams, tags: ['webhooks'], summary: 'Delete a webhook destination.' } },
    async (request, reply) => {
      await bus.execute(commands.remove, commandContext(request), { destinationId: request.params.destinationId });
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/v1/webhooks/deliveries',
    {
      config,
      schema: { querystring: DeliveriesQuery, tags: ['webhooks'], summary: 'Webhook delivery status of the tenant.' },
    },
    async (request) => {
      const q = request.query;
      const page = await bus.execute(commands.deliveries, commandContext(request), {
        limit: q.limit ?? 50,
        ...(q.destination === undefined ? {} : { destinationId: q.destination }),
        ...(q.status === undefined ? {} : { status: q.status }),
        ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
      });
      return { data: page.data, pagination: { nextCursor: page.nextCursor } };
    },
  );
}
