import { IssuerTrustError } from '../auth/jwt-authenticator.js';
import { resolveTenant } from '../tenancy/index.js';
import type { Platform } from '../platform.js';
import type { RequestState } from './types.js';

/**
 * A token refused for asserting more than its issuer is trusted for (issue 13 §1) is an authentication event of
 * the tenant the request reached (its host, else the default), with the issuer, the claimed principal and the kind
 * of violation; never the token. Ordinary malformed or expired tokens are not recorded here (their flood would fill
 * the audit). The append is not awaited: the refusal answers at once, and a failed append is logged.
 */
export function recordTrustRefusal(
  platform: Platform,
  state: RequestState,
  host: string | undefined,
  error: unknown,
): void {
  if (!(error instanceof IssuerTrustError)) return;
  let tenantId: string;
  try {
    tenantId = resolveTenant(platform.tenants, {
      principal: null,
      host,
      defaultTenant: platform.config.tenancy.defaultTenant,
    });
  } catch {
    return;
  }
  platform.audit
    .append({
      tenantId,
      type: 'authentication.failed',
      result: 'failure',
      principalId: error.claimedPrincipal?.slice(0, 256) ?? null,
      correlationId: state.correlationId,
      traceId: state.trace.traceId,
      details: { reason: `issuer_${error.violation}_not_trusted`, issuer: error.issuer.slice(0, 512) },
    })
    .catch((cause: unknown) => state.log.warn({ err: cause }, 'authentication event not recorded'));
}
