import Type from 'typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors/index.js';
import type { CommandContext } from '../../commands/command.js';
import type { RoleApp } from '../../http/create-app.js';
import type { Platform } from '../../platform.js';
import { exportTenant } from '../commands/export-tenant.js';
import { importTenant } from '../commands/import-tenant.js';
import { tenantTransfer } from '../tenant-transfer.js';

const Params = Type.Object(
  { tenantId: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }) },
  { additionalProperties: false },
);

/** An import carries design assets; larger than an ordinary request body. */
export const IMPORT_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * GET /api/v1/tenants/{tenantId}/export and POST /api/v1/tenants/{tenantId}/import (001 §4.5 "tenant export"),
 * on the management listener beside the audit API, for platform administrators. The tenant is the path's (the
 * routes run outside tenant resolution, like the audit read); the caller is checked before any tenant is looked
 * up or registered, so an unauthenticated caller can neither probe tenant ids nor create tenants.
 */
export function registerTenantExportRoutes(app: RoleApp, platform: Platform): void {
  const transfer = tenantTransfer(platform);
  const commands = { export: exportTenant(transfer), import: importTenant(transfer) };
  const config = { family: 'platform', tenant: 'none' } as const;

  app.get(
    '/api/v1/tenants/:tenantId/export',
    { config, schema: { params: Params, tags: ['tenants'], summary: 'Export the configuration of a tenant.' } },
    async (request, reply) => {
      const tenantId = request.params.tenantId;
      await assertPlatformAdmin(request, platform, tenantId, commands.export.id);
      if (!platform.tenants.get(tenantId)) await platform.tenants.load();
      if (!platform.tenants.get(tenantId)) throw new AppError('not_found', 'The tenant does not exist.');
      const doc = await platform.commands.execute(commands.export, context(request, tenantId), {});
      reply.header('cache-control', 'no-store');
      reply.header('content-disposition', `attachment; filename="tenant-${tenantId}.json"`);
      return doc;
    },
  );

  app.post(
    '/api/v1/tenants/:tenantId/import',
    {
      config,
      bodyLimit: IMPORT_BODY_LIMIT_BYTES,
      schema: {
        params: Params,
        tags: ['tenants'],
        summary: 'Recreate an exported configuration in an empty tenant (created when absent).',
      },
    },
    async (request, reply) => {
      const tenantId = request.params.tenantId;
      await assertPlatformAdmin(request, platform, tenantId, commands.import.id);
      const doc = await transfer.checkDocument(tenantId, request.body);
      await transfer.prepareTarget(tenantId, doc.tenant);
      const report = await platform.commands.execute(commands.import, context(request, tenantId), doc);
      reply.header('cache-control', 'no-store');
      return reply.code(201).send(report);
    },
  );
}

/**
 * Authentication and the platform administrator role, before the tenant is touched. The command bus decides the
 * policy again (action = command id) and audits that decision in the tenant's chain.
 */
async function assertPlatformAdmin(
  request: FastifyRequest,
  platform: Platform,
  tenantId: string,
  action: string,
): Promise<void> {
  const principal = request.state.principal;
  if (!principal)
    throw new AppError('unauthenticated', 'Authentication is required.', {
      headers: { 'www-authenticate': 'Bearer' },
    });
  if (principal.roles.includes(platform.config.auth.platformAdminRole)) return;
  // The denial lands in the tenant's chain when the tenant exists (the registry is not reloaded for a stranger).
  if (platform.tenants.get(tenantId))
    await platform.audit.append({
      tenantId,
      type: 'authorization.denied',
      commandId: action,
      principalId: principal.id,
      result: 'denied',
      correlationId: request.state.correlationId,
      traceId: request.state.trace.traceId,
      details: { reason: 'not_platform_admin' },
    });
  throw new AppError('policy_denied', 'Tenant export and import need the platform administrator role.');
}

function context(request: FastifyRequest, tenantId: string): CommandContext {
  const s = request.state;
  return {
    tenantId,
    principal: s.principal,
    correlationId: s.correlationId,
    trace: s.trace,
    get log() {
      return s.log;
    },
  };
}
