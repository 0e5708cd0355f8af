import { defineCommand } from '../../commands/command.js';
import type { TenantExportDocument } from '../document.js';
import type { TenantTransfer } from '../tenant-transfer.js';

export const EXPORT_TENANT = 'platform.tenants.export';

/**
 * Exports the configuration of the command's tenant as one document (001 §4.5). Platform administrators only
 * (`admin`); the audit event names the tenant, never the document.
 */
export const exportTenant = (transfer: TenantTransfer) =>
  defineCommand<Record<string, never>, TenantExportDocument>({
    id: EXPORT_TENANT,
    access: 'admin',
    businessIds: (_input, output): Record<string, string> =>
      output ? { sections: Object.keys(output.sections).length.toString() } : {},
    run: (ctx) => transfer.exportTenant(ctx.tenantId),
  });
