import Type, { type Static } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/index.js';
import type { RoleApp } from '../http/create-app.js';
import type { Platform } from '../platform.js';
import { PLATFORM_SCOPE, READ_AUDIT_EVENTS, readAuditEvents } from './commands/read-audit-events.js';
import { toCef, toOcsf } from './exports.js';

export { PLATFORM_SCOPE, READ_AUDIT_EVENTS } from './commands/read-audit-events.js';

/** Query parameters of GET /api/v1/audit/events (001 §4.5 leaves names and body open: "not shown"). */
export const AuditEventsQuery = Type.Object(
  {
    tenant: Type.Optional(
      Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'Tenant id; all tenants when absent.' }),
    ),
    principal: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, description: 'Principal id (token subject).' }),
    ),
    command: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Command id.' })),
    type: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Event type, e.g. command.executed.' }),
    ),
    result: Type.Optional(Type.Union([Type.Literal('success'), Type.Literal('failure'), Type.Literal('denied')])),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive lower bound (ISO 8601).' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive upper bound (ISO 8601).' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        pattern: '^[A-Za-z0-9_-]+$',
        description: 'nextCursor of the previous page.',
      }),
    ),
    format: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('cef'), Type.Literal('ocsf')], { default: 'json' }),
    ),
  },
  { additionalProperties: false },
);
export type AuditEventsQuery = Static<typeof AuditEventsQuery>;

/**
 * GET /api/v1/audit/events (001 §4.5, events per §6): platform administrators read audit events filtered by tenant, principal,
 * command, type, time range and result, a keyset page at a time, as JSON, CEF (text/plain, one event a line, the
 * next cursor in `X-Next-Cursor`) or OCSF. The read is the command `platform.audit.read-events` on the bus
 * (commands/read-audit-events.ts: policy, where it is audited); the route first requires the platform administrator
 * role, whatever the policy says, as the tenant export does.
 */
export function registerAuditRoutes(app: RoleApp, platform: Platform): void {
  const read = readAuditEvents(platform);
  app.get(
    '/api/v1/audit/events',
    {
      config: { family: 'platform', tenant: 'none' },
      schema: {
        querystring: AuditEventsQuery,
        tags: ['audit'],
        summary: 'Query audit events (platform administrators).',
      },
    },
    async (request, reply) => {
      const query = request.query;
      const format = query.format ?? 'json';
      await assertPlatformAdmin(request, platform, query.tenant);
      const filters = (['tenant', 'principal', 'command', 'type', 'result', 'from', 'to', 'cursor'] as const).filter(
        (k) => query[k] !== undefined,
      );
      const { state } = request;
      const page = await platform.commands.execute(
        read,
        {
          tenantId: query.tenant ?? PLATFORM_SCOPE,
          principal: state.principal,
          correlationId: state.correlationId,
          trace: state.trace,
          get log() {
            return state.log;
          },
        },
        {
          principalId: query.principal,
          commandId: query.command,
          type: query.type,
          result: query.result,
          from: query.from === undefined ? undefined : new Date(query.from),
          to: query.to === undefined ? undefined : new Date(query.to),
          limit: query.limit ?? 50,
          cursor: query.cursor,
          format,
          filters: [...filters],
        },
      );

      reply.header('cache-control', 'no-store');
      const options = { productVersion: platform.config.build.version };
      switch (format) {
        case 'cef': {
          if (page.nextCursor !== null) reply.header('x-next-cursor', page.nextCursor);
          const lines = page.events.map((e) => `${toCef(e, options)}\n`).join('');
          return reply.type('text/plain; charset=utf-8').send(lines);
        }
        case 'ocsf':
          return reply.send({
            data: page.events.map((e) => toOcsf(e, options)),
            pagination: { nextCursor: page.nextCursor },
          });
        default:
          return reply.send({ data: page.events, pagination: { nextCursor: page.nextCursor } });
      }
    },
  );
}

/**
 * Authentication and the platform administrator role, before the policy. A refusal is recorded in the chain of the
 * tenant the read names, only when the registry knows it (an unauthenticated caller can neither write into arbitrary
 * chains nor make the registry reload).
 */
async function assertPlatformAdmin(
  request: FastifyRequest,
  platform: Platform,
  tenantId: string | undefined,
): Promise<void> {
  const principal = request.state.principal;
  if (principal?.roles.includes(platform.config.auth.platformAdminRole)) return;
  const reason = principal ? 'not_platform_admin' : 'unauthenticated';
  if (tenantId !== undefined && platform.tenants.get(tenantId))
    await platform.audit.append({
      tenantId,
      type: 'authorization.denied',
      commandId: READ_AUDIT_EVENTS,
      principalId: principal?.id ?? null,
      result: 'denied',
      correlationId: request.state.correlationId,
      traceId: request.state.trace.traceId,
      details: { reason },
    });
  if (!principal)
    throw new AppError('unauthenticated', 'Authentication is required.', {
      headers: { 'www-authenticate': 'Bearer' },
    });
  throw new AppError('policy_denied', 'Reading audit events needs the platform administrator role.');
}
