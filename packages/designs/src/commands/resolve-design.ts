import { AppError, invalidRequest, isAppError } from '@tessera/platform';
import type { BindingKey } from '../domain/enums.js';
import type { KindInfo } from '../domain/kinds.js';
import { designNotFound } from '../domain/normalize-design.js';
import type { Binding, DesignDocument } from '../domain/records.js';
import { resolveDesign, type ResolvedDesign } from '../domain/resolve-design.js';
import { mapOcaBundle } from '../mappers/index.js';
import type { DesignsServices } from '../services.js';
import { designStore } from '../storage/design-store.js';
import { variantStore } from '../storage/variant-store.js';
import { designCommand } from './design-commands.js';

export interface ResolveDesignInput {
  designId?: string;
  binding?: Binding;
  bindingKey?: BindingKey;
  bindingValue?: string;
  preferredLocales?: string[];
  renderTarget?: string;
  externalMetadata?: { ocaBundle?: Record<string, unknown> };
}

/** Exactly one way of naming the design (001 §4.1: "one of designId, binding, or bindingKey with bindingValue"). */
function selectorOf(input: ResolveDesignInput): { designId: string } | { binding: Binding } {
  const pair =
    input.bindingKey !== undefined || input.bindingValue !== undefined
      ? (() => {
          if (input.bindingKey === undefined) throw invalidRequest('bindingValue needs bindingKey.', 'bindingKey');
          if (input.bindingValue === undefined) throw invalidRequest('bindingKey needs bindingValue.', 'bindingValue');
          return { key: input.bindingKey, value: input.bindingValue };
        })()
      : undefined;
  const given = [input.designId, input.binding, pair].filter((x) => x !== undefined).length;
  if (given === 0)
    throw invalidRequest('Name the design: designId, binding, or bindingKey with bindingValue.', 'designId');
  if (given > 1) throw invalidRequest('Name the design one way only.', 'designId');
  if (input.designId !== undefined) return { designId: input.designId };
  return { binding: input.binding ?? pair! };
}

function inlineOca(input: ResolveDesignInput, defaultLocale: string): DesignDocument | null {
  const bundle = input.externalMetadata?.ocaBundle;
  if (bundle === undefined) return null;
  try {
    return mapOcaBundle(bundle, defaultLocale).document;
  } catch (error) {
    if (isAppError(error))
      throw new AppError('invalid_request', error.message.replace('source document', 'inline OCA bundle'), {
        field: 'externalMetadata.ocaBundle',
      });
    throw error;
  }
}

/**
 * POST /designs/{kind}/resolve (001 §4.1, issue 17 item 3): the design named by id or binding, merged with its
 * layers (domain/resolve-design.ts), its matched render variants, render hints, applied layers, locked fields and
 * ETag. 404 when no design of the tenant matches.
 */
export const resolveDesignCommand = (s: DesignsServices, info: KindInfo) =>
  designCommand<ResolveDesignInput, ResolvedDesign>(s, {
    id: info.resolveCommand,
    access: 'read',
    businessIds: (_input, output): Record<string, string> => (output ? { designId: output.design.id } : {}),
    async run(ctx, input) {
      const selector = selectorOf(input);
      const oca = inlineOca(input, s.config.defaultLocale);
      const found = await s.platform.db.withTenantSession(ctx.tenantId, async (sql) => {
        const stored =
          'designId' in selector
            ? await designStore.get(sql, info.kind, selector.designId)
            : await designStore.findByBinding(sql, info.kind, selector.binding.key, selector.binding.value);
        if (!stored) return null;
        return { stored, variants: await variantStore.list(sql, { designId: stored.record.id }) };
      });
      if (!found) throw designNotFound();
      return resolveDesign(
        {
          record: found.stored.record,
          tenantDefaults: s.config.tenantDefaults[ctx.tenantId] ?? null,
          snapshot: found.stored.sourceDocument,
          inlineOca: oca,
          variants: found.variants,
        },
        {
          preferredLocales: input.preferredLocales ?? [],
          renderTarget: input.renderTarget ?? null,
          defaultLocale: s.config.defaultLocale,
        },
      );
    },
  });
