import { AppError } from '../errors/index.js';
import type { Principal } from '../auth/principal.js';
import type { TenantRegistry } from './tenant-registry.js';

export interface TenantResolutionInput {
  /** Validated principal, if the request carried a valid token. */
  principal: Principal | null;
  /** Host name of the request (without port), from the Host header (X-Forwarded-Host only behind a trusted proxy). */
  host: string | undefined;
  defaultTenant: string | undefined;
  /**
   * X-Tenant-ID from trusted infrastructure on a route that honours it: it names the tenant in place of the token,
   * host and default. It grants nothing: the policy still checks the principal against that tenant.
   */
  trustedOverride?: string | undefined;
}

/**
 * The tenant of a request (001 §5): from the validated JWT, else the Host mapping, else the configured default,
 * never from a body field or X-Tenant-Id (which is logged only). A token whose tenant differs from the host's is
 * refused; a request that resolves no active tenant fails before the endpoint. docs/decisions.md.
 */
export function resolveTenant(registry: TenantRegistry, input: TenantResolutionInput): string {
  if (input.trustedOverride !== undefined) return activeTenant(registry, input.trustedOverride);
  const fromHost = input.host ? registry.tenantForHost(input.host) : undefined;
  const fromToken = input.principal?.tenantId ?? undefined;
  if (fromToken && fromHost && fromToken !== fromHost) {
    throw new AppError('policy_denied', 'The token belongs to another tenant than this host.');
  }
  const tenantId = fromToken ?? fromHost ?? input.defaultTenant;
  if (!tenantId) throw new AppError('tenant_not_resolved', 'The request does not resolve to a tenant.');
  return activeTenant(registry, tenantId);
}

function activeTenant(registry: TenantRegistry, tenantId: string): string {
  if (!registry.isActive(tenantId))
    throw new AppError('tenant_not_resolved', 'The request does not resolve to an active tenant.');
  return tenantId;
}
