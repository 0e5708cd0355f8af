import { defineCommand, unitFor } from '../../commands/command.js';
import type { TenantExportDocument } from '../document.js';
import type { TenantImportReport, TenantTransfer } from '../tenant-transfer.js';

export const IMPORT_TENANT = 'platform.tenants.import';

/**
 * Recreates an exported configuration in the command's tenant, which must be empty (409 otherwise). Platform
 * administrators only; the audit event names the source tenant, never the document or the secrets issued.
 */
export const importTenant = (transfer: TenantTransfer) =>
  defineCommand<TenantExportDocument, TenantImportReport>({
    id: IMPORT_TENANT,
    access: 'admin',
    businessIds: (input): Record<string, string> => ({ sourceTenantId: input.sourceTenantId }),
    run: (ctx, doc) => transfer.importTenant(ctx.tenantId, doc, unitFor(ctx)),
  });
