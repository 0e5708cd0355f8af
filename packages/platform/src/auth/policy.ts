import type { Principal } from './principal.js';

/**
 * Authorization policy (001 §5): evaluated on every command, the action is the command id
 * (e.g. `party-rest.persons.create`). The engine is an interface so that a deployment can plug in an external
 * decision point (OPA, Cedar, XACML) without touching the commands.
 */
export type AccessKind = 'read' | 'write' | 'admin' | 'public';

export interface PolicyRequest {
  action: string;
  access: AccessKind;
  tenantId: string;
  principal: Principal | null;
  /**
   * An OAuth scope that by itself grants the action to a principal of the tenant (service-to-service calls, such
   * as the portal backend calling the bridge with a client_credentials token).
   */
  requiredScope?: string | undefined;
  /** Business identifiers of the resource, when the command knows them before running. */
  resource?: Record<string, string>;
}

export interface PolicyDecision {
  allow: boolean;
  /** Short machine-readable reason, recorded in the audit event of the decision. */
  reason: string;
}

export interface PolicyDecisionPoint {
  decide(request: PolicyRequest): Promise<PolicyDecision> | PolicyDecision;
}

export interface RolePolicyOptions {
  tenantAdminRole: string;
  platformAdminRole: string;
  /** Per-action overrides: the roles allowed to run that action (any one suffices). */
  actionRoles?: Record<string, readonly string[]>;
}

/**
 * The default policy: platform administrators may do anything; tenant administrators write in their tenant;
 * any authenticated principal of the tenant reads. `admin` actions (audit read) need a platform administrator.
 */
export class RolePolicy implements PolicyDecisionPoint {
  constructor(private readonly options: RolePolicyOptions) {}

  decide({ action, access, tenantId, principal, requiredScope }: PolicyRequest): PolicyDecision {
    if (access === 'public') return { allow: true, reason: 'public' };
    if (!principal) return { allow: false, reason: 'unauthenticated' };
    const roles = principal.roles;
    if (roles.includes(this.options.platformAdminRole)) return { allow: true, reason: 'platform_admin' };
    if (principal.tenantId !== null && principal.tenantId !== tenantId)
      return { allow: false, reason: 'foreign_tenant' };
    if (requiredScope !== undefined) {
      return principal.scopes.includes(requiredScope)
        ? { allow: true, reason: 'scope' }
        : { allow: false, reason: 'missing_scope' };
    }
    const override = this.options.actionRoles?.[action];
    if (override) {
      return override.some((r) => roles.includes(r))
        ? { allow: true, reason: 'action_role' }
        : { allow: false, reason: 'missing_action_role' };
    }
    switch (access) {
      case 'read':
        return { allow: true, reason: 'tenant_reader' };
      case 'write':
        return roles.includes(this.options.tenantAdminRole)
          ? { allow: true, reason: 'tenant_admin' }
          : { allow: false, reason: 'not_tenant_admin' };
      case 'admin':
        return { allow: false, reason: 'not_platform_admin' };
    }
  }
}
