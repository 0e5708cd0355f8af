import type { PolicyDecisionPoint } from '@tessera/platform';

/**
 * The platform's policy, narrowed for some actions to a list of roles (001 §5: "attribute readback for narrow
 * support or audit roles"). The platform's decision comes first (tenant, authentication); a platform administrator
 * keeps its access; anyone else needs one of the listed roles.
 */
export function narrowPolicy(
  base: PolicyDecisionPoint,
  actionRoles: Record<string, readonly string[]>,
): PolicyDecisionPoint {
  return {
    async decide(request) {
      const decision = await base.decide(request);
      const roles = actionRoles[request.action];
      if (!decision.allow || roles === undefined || decision.reason === 'platform_admin') return decision;
      const held = request.principal?.roles ?? [];
      return roles.some((r) => held.includes(r))
        ? { allow: true, reason: 'action_role' }
        : { allow: false, reason: 'missing_action_role' };
    },
  };
}
