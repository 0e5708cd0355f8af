import { defineCommand } from '@tessera/platform';
import { RECONCILIATION_SCOPES } from '../config.js';
import { canonicalAuxiliaryData, parseExpiresAt } from '../domain/auxiliary-data.js';
import { categoryNotAllowed, identityNotFound } from '../domain/errors.js';
import { categoryAllowed, type Projection } from '../domain/projection.js';
import type { ReconciliationServices } from '../services.js';
import { auxiliaryStore } from '../storage/auxiliary-store.js';

export const PUT_AUXILIARY_DATA = 'reconciliation-api.auxiliary.put';

const FOREIGN_KEY_VIOLATION = '23503';

export interface PutAuxiliaryDataInput {
  projection: Projection;
  internalIdentityId: string;
  category: string;
  data: unknown;
  expiresAt?: string | undefined;
}

export interface PutAuxiliaryDataOutput {
  status: 200 | 201;
  body: { category: string; storedBy: string; storedAt: string; expiresAt: string | null };
}

/**
 * PUT /{internalIdentityId}/auxiliary/{category} (000 §4.3, §2.6, §3.3): 201 when the category held no (live)
 * data, else 200; the data replaces what was stored entirely, never merged. storedBy is the calling client,
 * storedAt now. Outside the projection 403 category_not_allowed; over 64 KB 413 data_too_large; unknown identity
 * 404 identity_not_found.
 */
export const putAuxiliaryData = (s: ReconciliationServices) =>
  defineCommand<PutAuxiliaryDataInput, PutAuxiliaryDataOutput>({
    id: PUT_AUXILIARY_DATA,
    access: 'write',
    requiredScope: RECONCILIATION_SCOPES.write,
    businessIds: (input, output) => ({
      internalIdentityId: input.internalIdentityId,
      category: input.category,
      ...(output ? { outcome: output.status === 201 ? 'created' : 'replaced' } : {}),
    }),
    async run(ctx, input) {
      const { projection, internalIdentityId, category } = input;
      if (!categoryAllowed(category, projection)) throw categoryNotAllowed();
      const canonical = canonicalAuxiliaryData(input.data);
      const now = s.clock.now();
      const expiresAt = parseExpiresAt(input.expiresAt, now);
      let created: boolean;
      try {
        // The record and the command's audit event commit together (issue 13 §7); an unknown identity rolls the
        // unit back, event and all.
        created = await ctx.unitOfWork(async (sql) => {
          if (!(await s.identities.get({ tenantId: ctx.tenantId, sql }, internalIdentityId))) throw identityNotFound();
          const at = { tenantId: ctx.tenantId, identityId: internalIdentityId, category };
          const dataSealed = await s.sealer.seal(canonical, at, sql);
          const row = { category, dataSealed, storedBy: projection.clientId, storedAt: now, expiresAt };
          return auxiliaryStore.put(sql, internalIdentityId, row, now);
        });
      } catch (error) {
        // The identity was erased between the read and the write (the foreign key refused the record).
        if ((error as { code?: unknown }).code === FOREIGN_KEY_VIOLATION) throw identityNotFound();
        throw error;
      }
      return {
        status: created ? 201 : 200,
        body: {
          category,
          storedBy: projection.clientId,
          storedAt: now.toISOString(),
          expiresAt: expiresAt?.toISOString() ?? null,
        },
      };
    },
  });
