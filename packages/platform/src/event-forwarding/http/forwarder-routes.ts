import Type from 'typebox';
import { commandContext } from '../../http/types.js';
import type { RoleApp } from '../../http/create-app.js';
import type { Platform } from '../../platform.js';
import { createForwarder } from '../commands/create-forwarder.js';
import { deleteForwarder } from '../commands/delete-forwarder.js';
import { listForwarders } from '../commands/list-forwarders.js';
import { FORWARDER_FORMATS } from '../domain/stream.js';
import type { EventForwardingService } from '../event-forwarding-service.js';

const EVENT_TYPE = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._:-]+$' });

const CreateBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'https URL that receives one POST per event, or syslog-tls://host[:port] for syslog over TLS (RFC 5425, port 6514 by default).',
    }),
    format: Type.Union(FORWARDER_FORMATS.map((f) => Type.Literal(f))),
    eventTypes: Type.Optional(
      Type.Array(EVENT_TYPE, { maxItems: 100, description: 'Audit event types forwarded; all when empty or absent.' }),
    ),
  },
  { additionalProperties: false },
);
const Params = Type.Object({ forwarderId: Type.String({ format: 'uuid' }) }, { additionalProperties: false });

const config = { family: 'platform' } as const;

/**
 * Generic event forwarders on the management listener, beside the audit and webhook APIs: tenant and platform
 * administrators; the tenant from the token. Delivery status is the webhook API's (`/api/v1/webhooks/deliveries`
 * with the forwarder's `destinationId`).
 */
export function registerForwarderRoutes(app: RoleApp, platform: Platform, service: EventForwardingService): void {
  const bus = platform.commands;
  const commands = {
    create: createForwarder(service),
    list: listForwarders(service),
    remove: deleteForwarder(service),
  };

  app.post(
    '/api/v1/event-forwarders',
    { config, schema: { body: CreateBody, tags: ['event-forwarding'], summary: 'Forward audit events to a SIEM.' } },
    async (request, reply) => {
      const created = await bus.execute(commands.create, commandContext(request), request.body);
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ ...created.forwarder, secret: created.secret });
    },
  );

  app.get(
    '/api/v1/event-forwarders',
    {
      config,
      schema: {
        querystring: Type.Object({}, { additionalProperties: false }),
        tags: ['event-forwarding'],
        summary: 'List the event forwarders of the tenant.',
      },
    },
    async (request) => ({ data: await bus.execute(commands.list, commandContext(request), {}) }),
  );

  app.delete(
    '/api/v1/event-forwarders/:forwarderId',
    { config, schema: { params: Params, tags: ['event-forwarding'], summary: 'Delete an event forwarder.' } },
    async (request, reply) => {
      await bus.execute(commands.remove, commandContext(request), { forwarderId: request.params.forwarderId });
      return reply.code(204).send();
    },
  );
}
