import { randomUUID } from 'node:crypto';
import { VARIANT_COMMANDS } from '../domain/kinds.js';
import type { RenderVariant, RenderVariantInput } from '../domain/records.js';
import { normalizeVariant, variantDesignUnknown, variantNotFound } from '../domain/render-variants.js';
import type { DesignsServices } from '../services.js';
import { variantStore } from '../storage/variant-store.js';
import { designCommand } from './design-commands.js';

/**
 * Render variants (001 §4.1): POST/GET /designs/render/variants, GET/PUT/DELETE /designs/render/variants/{id}.
 * A variant belongs to a design of the tenant (an unknown designId is 400 naming it); deleting the design deletes
 * its variants. Five use cases, one factory each.
 */
const FOREIGN_KEY_VIOLATION = '23503';
const withDesign = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (error) {
    if ((error as { code?: unknown }).code === FOREIGN_KEY_VIOLATION) throw variantDesignUnknown();
    throw error;
  }
};

export const createRenderVariant = (s: DesignsServices) =>
  designCommand<RenderVariantInput, RenderVariant>(s, {
    id: `${VARIANT_COMMANDS}.create`,
    access: 'write',
    businessIds: (input, output): Record<string, string> => ({
      designId: input.designId,
      ...(output ? { variantId: output.id } : {}),
    }),
    run: (ctx, input) =>
      withDesign(() =>
        ctx.unitOfWork((sql) => variantStore.insert(sql, randomUUID(), normalizeVariant(input), s.clock.now())),
      ),
  });

export const listRenderVariants = (s: DesignsServices) =>
  designCommand<{ designId?: string; renderTarget?: string }, RenderVariant[]>(s, {
    id: `${VARIANT_COMMANDS}.list`,
    access: 'read',
    run: (ctx, input) => s.platform.db.withTenantSession(ctx.tenantId, (sql) => variantStore.list(sql, input)),
  });

export const getRenderVariant = (s: DesignsServices) =>
  designCommand<{ variantId: string }, RenderVariant>(s, {
    id: `${VARIANT_COMMANDS}.get`,
    access: 'read',
    businessIds: (input) => ({ variantId: input.variantId }),
    async run(ctx, input) {
      const variant = await s.platform.db.withTenantSession(ctx.tenantId, (sql) =>
        variantStore.get(sql, input.variantId),
      );
      if (!variant) throw variantNotFound();
      return variant;
    },
  });

export const updateRenderVariant = (s: DesignsServices) =>
  designCommand<{ variantId: string; variant: RenderVariantInput }, RenderVariant>(s, {
    id: `${VARIANT_COMMANDS}.update`,
    access: 'write',
    businessIds: (input) => ({ variantId: input.variantId }),
    async run(ctx, input) {
      const normalized = normalizeVariant(input.variant);
      return withDesign(() =>
        ctx.unitOfWork(async (sql) => {
          const variant = await variantStore.update(sql, input.variantId, normalized, s.clock.now());
          if (!variant) throw variantNotFound();
          return variant;
        }),
      );
    },
  });

export const deleteRenderVariant = (s: DesignsServices) =>
  designCommand<{ variantId: string }, void>(s, {
    id: `${VARIANT_COMMANDS}.delete`,
    access: 'write',
    businessIds: (input) => ({ variantId: input.variantId }),
    async run(ctx, input) {
      await ctx.unitOfWork(async (sql) => {
        if (!(await variantStore.delete(sql, input.variantId))) throw variantNotFound();
      });
    },
  });
