import Type, { type Static } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../errors/index.js';
import type { RoleApp } from '../http/create-app.js';
import type { Platform } from '../platform.js';
import type { AuditEvent, AuditResult } from './audit-log.js';
import { toCef, toOcsf } from './exports.js';

/** Policy action and audit command id of the read (001 §5: action names equal command ids). */
export const READ_AUDIT_EVENTS = 'platform.audit.read-events';
/** The scope a policy decision names when the read spans every tenant; not a tenant id (ids have no underscore). */
export const PLATFORM_SCOPE = '_platform';

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
 * next cursor in `X-Next-Cursor`) or OCSF.
 *
 * Where the read is audited: audit chains are per tenant, so a read filtered by tenant (and every decision about
 * one) is appended to that tenant's chain. A read across all tenants belongs to no tenant's chain and is not
 * appended; the request log line still records who made it. A denial names a tenant only when the registry knows
 * it, so that unauthenticated callers can neither write into arbitrary chains nor make the registry reload.
 */
export function registerAuditRoutes(app: RoleApp, platform: Platform): void {
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
      const principal = request.state.principal;
      const record = (tenantId: string | null, type: string, result: AuditResult, details: Record<string, unknown>) =>
        tenantId === null
          ? Promise.resolve()
          : platform.audit.append(auditEvent(request, tenantId, type, result, details));
      const knownTenant = query.tenant !== undefined && platform.tenants.get(query.tenant) ? query.tenant : null;

      if (!principal) {
        await record(knownTenant, 'authorization.denied', 'denied', { reason: 'unauthenticated' });
        throw new AppError('unauthenticated', 'Authentication is required.', {
          headers: { 'www-authenticate': 'Bearer' },
        });
      }
      if (!principal.roles.includes(platform.config.auth.platformAdminRole)) {
        await record(knownTenant, 'authorization.denied', 'denied', { reason: 'not_platform_admin' });
        throw new AppError('policy_denied', 'Reading audit events needs the platform administrator role.');
      }
      const decision = await platform.policy.decide({
        action: READ_AUDIT_EVENTS,
        access: 'admin',
        tenantId: query.tenant ?? PLATFORM_SCOPE,
        principal,
      });
      if (!decision.allow) {
        await record(knownTenant, 'authorization.denied', 'denied', { reason: decision.reason });
        throw new AppError('policy_denied', 'The policy does not allow this action.');
      }
      const auditTenant = query.tenant === undefined ? null : await existingTenant(platform, query.tenant);

      const filters = (['tenant', 'principal', 'command', 'type', 'result', 'from', 'to', 'cursor'] as const).filter(
        (k) => query[k] !== undefined,
      );
      let page: { events: AuditEvent[]; nextCursor: string | null };
      try {
        page = await platform.audit.query({
          tenantId: query.tenant,
          principalId: query.principal,
          commandId: query.command,
          type: query.type,
          result: query.result,
          from: query.from === undefined ? undefined : new Date(query.from),
          to: query.to === undefined ? undefined : new Date(query.to),
          limit: query.limit ?? 50,
          cursor: query.cursor,
        });
      } catch (error) {
        await record(auditTenant, 'command.executed', 'failure', {
          policy: decision.reason,
          format,
          filters,
          error: isAppError(error) ? error.code : 'server_error',
        });
        throw error;
      }
      // Durable before the answer, like every command's audit event.
      await record(auditTenant, 'command.executed', 'success', {
        policy: decision.reason,
        format,
        filters,
        returned: page.events.length,
      });

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

/** A tenant filter must name a tenant (so that the read can be audited in its chain); the cache may lag creation elsewhere. */
async function existingTenant(platform: Platform, tenantId: string): Promise<string> {
  if (!platform.tenants.get(tenantId)) await platform.tenants.load();
  if (!platform.tenants.get(tenantId))
    throw new AppError('not_found', 'The tenant does not exist.', { field: 'tenant' });
  return tenantId;
}

function auditEvent(
  request: FastifyRequest,
  tenantId: string,
  type: string,
  result: AuditResult,
  details: Record<string, unknown>,
) {
  const { principal, correlationId, trace } = request.state;
  return {
    tenantId,
    type,
    commandId: READ_AUDIT_EVENTS,
    principalId: principal?.id ?? null,
    result,
    correlationId,
    traceId: trace.traceId,
    details,
  };
}
