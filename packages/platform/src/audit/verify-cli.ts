import type { Platform } from '../platform.js';
import type { AuditVerifyResult } from './audit-store.js';

export interface TenantVerification {
  tenantId: string;
  result: AuditVerifyResult;
}

/**
 * The `audit-verify` command of the server (001 §6 tamper evidence): recomputes the chain of each tenant (every
 * tenant of the registry by default) and checks its checkpoints. Tenants are verified one after the other, so a
 * large store is streamed through one connection at a time.
 */
export async function runAuditVerify(
  platform: Pick<Platform, 'audit' | 'tenants'>,
  tenantIds?: string[],
): Promise<TenantVerification[]> {
  const ids =
    tenantIds && tenantIds.length > 0
      ? tenantIds
      : platform.tenants
          .list()
          .map((t) => t.id)
          .sort();
  const results: TenantVerification[] = [];
  for (const tenantId of ids) results.push({ tenantId, result: await platform.audit.verify(tenantId) });
  return results;
}
