import { BINDING_KEYS, HOSTING_MODES, SOURCE_TYPES, isOneOf } from '../domain/enums.js';
import type { KindInfo } from '../domain/kinds.js';
import type { DesignRecord } from '../domain/records.js';
import type { DesignsServices } from '../services.js';
import { designStore, type DesignFilters } from '../storage/design-store.js';
import { designCommand } from './design-commands.js';

export interface ListDesignsInput {
  entityType?: string;
  hostingMode?: string;
  bindingKey?: string;
  bindingValue?: string;
  aliasContains?: string;
  sourceType?: string;
  limit?: number;
  offset?: number;
}

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 500;

/**
 * GET /designs/{kind} with the six optional filters of 001 §4.1. An unknown value of an enum parameter
 * (entityType, hostingMode, bindingKey, sourceType) is silently dropped, as the spec says: the filter is then not
 * applied. An entityType of another kind of design matches nothing in this collection.
 */
export const listDesigns = (s: DesignsServices, info: KindInfo) =>
  designCommand<ListDesignsInput, DesignRecord[]>(s, {
    id: `${info.commandPrefix}.list`,
    access: 'read',
    async run(ctx, input) {
      if (isOneOf(['CREDENTIAL', 'ISSUER', 'VERIFIER'], input.entityType) && input.entityType !== info.kind) return [];
      const filters: DesignFilters = {
        limit: Math.min(input.limit ?? DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT),
        offset: input.offset ?? 0,
      };
      if (isOneOf(HOSTING_MODES, input.hostingMode)) filters.hostingMode = input.hostingMode;
      if (isOneOf(SOURCE_TYPES, input.sourceType)) filters.sourceType = input.sourceType;
      if (isOneOf(BINDING_KEYS, input.bindingKey)) filters.bindingKey = input.bindingKey;
      if (input.bindingValue !== undefined) filters.bindingValue = input.bindingValue;
      if (input.aliasContains !== undefined && input.aliasContains !== '') filters.aliasContains = input.aliasContains;
      const stored = await s.platform.db.withTenantSession(ctx.tenantId, (sql) =>
        designStore.list(sql, info.kind, filters),
      );
      return stored.map((d) => d.record);
    },
  });
