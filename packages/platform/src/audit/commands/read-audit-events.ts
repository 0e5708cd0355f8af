import { defineCommand, type Command } from '../../commands/command.js';
import { isAppError, AppError } from '../../errors/index.js';
import type { TenantRegistry } from '../../tenancy/index.js';
import type { AuditLog, AuditResult } from '../audit-log.js';
import type { AuditPage, AuditQuery } from '../audit-store.js';

/** Policy action and audit command id of the read (001 §5: action names equal command ids). */
export const READ_AUDIT_EVENTS = 'platform.audit.read-events';
/** The scope a policy decision names when the read spans every tenant; not a tenant id (ids have no underscore). */
export const PLATFORM_SCOPE = '_platform';

/**
 * What the read is asked: the store's filter but its tenant, which is the command context's (the tenant the policy
 * decided for, so that the decision and the read never disagree), and the answer's format (recorded in its event).
 */
export interface ReadAuditEventsInput extends Omit<AuditQuery, 'tenantId'> {
  format: string;
  /** The names of the filters the caller gave (recorded, never their values). */
  filters: string[];
}

/**
 * The audit read (001 §4.5 "audit", §6) as a command of the bus: the policy decides `platform.audit.read-events`
 * (access `admin`) for the filtered tenant, or for PLATFORM_SCOPE when the read spans every tenant (the command
 * context's tenant). Audit chains are per tenant, so a read filtered by tenant (and every decision about one) is
 * appended to that tenant's chain; a read across all tenants belongs to no tenant's chain and is not appended. A
 * denial names a tenant only when the registry knows it, so that callers can neither write into arbitrary chains nor
 * make the registry reload. The read's own event is durable before the answer, like every command's.
 */
export function readAuditEvents(deps: {
  audit: AuditLog & { query(filter: AuditQuery): Promise<AuditPage> };
  tenants: Pick<TenantRegistry, 'get' | 'load'>;
}): Command<ReadAuditEventsInput, AuditPage> {
  return defineCommand<ReadAuditEventsInput, AuditPage>({
    id: READ_AUDIT_EVENTS,
    access: 'admin',
    audit: 'self',
    auditTenant: (ctx) => (ctx.tenantId !== PLATFORM_SCOPE && deps.tenants.get(ctx.tenantId) ? ctx.tenantId : null),
    async run(ctx, { format, filters, ...rest }) {
      const tenantId = ctx.tenantId === PLATFORM_SCOPE ? undefined : ctx.tenantId;
      const filter: AuditQuery = { ...rest, tenantId };
      const chain = tenantId === undefined ? null : await existingTenant(deps.tenants, tenantId);
      const record = (result: AuditResult, details: Record<string, unknown>) =>
        chain === null
          ? Promise.resolve()
          : deps.audit.append({
              tenantId: chain,
              type: 'command.executed',
              commandId: READ_AUDIT_EVENTS,
              principalId: ctx.principal?.id ?? null,
              result,
              correlationId: ctx.correlationId,
              traceId: ctx.trace?.traceId,
              details: { policy: ctx.policyReason, format, filters, ...details },
            });
      let page: AuditPage;
      try {
        page = await deps.audit.query(filter);
      } catch (error) {
        await record('failure', { error: isAppError(error) ? error.code : 'server_error' });
        throw error;
      }
      await record('success', { returned: page.events.length });
      return page;
    },
  });
}

/** A tenant filter must name a tenant (so that the read can be audited in its chain); the cache may lag creation elsewhere. */
async function existingTenant(tenants: Pick<TenantRegistry, 'get' | 'load'>, tenantId: string): Promise<string> {
  if (!tenants.get(tenantId)) await tenants.load();
  if (!tenants.get(tenantId)) throw new AppError('not_found', 'The tenant does not exist.', { field: 'tenant' });
  return tenantId;
}
