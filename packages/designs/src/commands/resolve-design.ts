import { createHash } from 'node:crypto';
import { AppError, canonicalJson, invalidRequest, isAppError } from '@tessera/platform';
import type { BindingKey, DesignKind } from '../domain/enums.js';
import type { KindInfo } from '../domain/kinds.js';
import { designNotFound } from '../domain/normalize-design.js';
import type { Binding, DesignDocument } from '../domain/records.js';
import {
  matchesIfNoneMatch,
  resolveDesign,
  resolveEtag,
  type ResolvedDesign,
  validatorsOf,
  type ResolveLayers,
} from '../domain/resolve-design.js';
import { mapOcaBundle } from '../mappers/index.js';
import type { DesignsServices } from '../services.js';
import type { DesignSelector } from '../storage/design-store.js';
import { resolveCacheKey, validatorsKey } from './resolve-cache.js';
import { designCommand } from './design-commands.js';

export interface ResolveDesignInput {
  designId?: string;
  binding?: Binding;
  bindingKey?: BindingKey;
  bindingValue?: string;
  preferredLocales?: string[];
  renderTarget?: string;
  externalMetadata?: { ocaBundle?: Record<string, unknown> };
  /** The request's If-None-Match: a match answers `notModified` without merging (RFC 9110 §13.1.2). */
  ifNoneMatch?: string;
}

/**
 * A 304's ETag, or the resolved design with its ETag. `resolved` may be the object a previous resolve answered
 * (resolve-cache.ts): callers do not change it, and may key what they derive from it (its serialisation) by it.
 */
export type ResolveDesignOutput =
  { notModified: true; etag: string } | { notModified: false; etag: string; resolved: ResolvedDesign };

/**
 * Exactly one way of naming the design (001 §4.1: "one of designId, binding, or bindingKey with bindingValue"), as
 * the selector the storage reads. Plain comparisons: this runs on every resolve.
 */
function selectorOf(input: ResolveDesignInput, kind: DesignKind): DesignSelector {
  const hasPair = input.bindingKey !== undefined || input.bindingValue !== undefined;
  if (hasPair) {
    if (input.bindingKey === undefined) throw invalidRequest('bindingValue needs bindingKey.', 'bindingKey');
    if (input.bindingValue === undefined) throw invalidRequest('bindingKey needs bindingValue.', 'bindingValue');
  }
  const given = (input.designId !== undefined ? 1 : 0) + (input.binding !== undefined ? 1 : 0) + (hasPair ? 1 : 0);
  if (given === 0)
    throw invalidRequest('Name the design: designId, binding, or bindingKey with bindingValue.', 'designId');
  if (given > 1) throw invalidRequest('Name the design one way only.', 'designId');
  if (input.designId !== undefined) return { kind, designId: input.designId };
  if (input.binding !== undefined) return { kind, key: input.binding.key, value: input.binding.value };
  return { kind, key: input.bindingKey!, value: input.bindingValue! };
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
  designCommand<ResolveDesignInput, ResolveDesignOutput>(s, {
    id: info.resolveCommand,
    access: 'read',
    businessIds: (_input, output): Record<string, string> =>
      output && !output.notModified ? { designId: output.resolved.design.id } : {},
    async run(ctx, input) {
      const designSelector = selectorOf(input, info.kind);
      const bundle = input.externalMetadata?.ocaBundle;
      const options = {
        preferredLocales: input.preferredLocales ?? [],
        renderTarget: input.renderTarget ?? null,
        defaultLocale: s.config.defaultLocale,
      };
      // Inline bundles are per request: such a resolve is neither answered from nor kept in the cache.
      const cache = s.resolveCache;
      const cacheKey = bundle === undefined ? resolveCacheKey(ctx.tenantId, designSelector, options) : null;
      const cached = cacheKey === null ? undefined : cache.get(cacheKey);
      // While the cache follows every replica's committed changes, what it keeps is current (resolve-cache.ts):
      // a matching ETag answers 304 (RFC 9110 §13.1.2) and a kept design answers, with nothing read.
      if (cached !== undefined && cache.trusted) {
        if (matchesIfNoneMatch(input.ifNoneMatch, cached.etag)) return { notModified: true, etag: cached.etag };
        if (cached.resolved) return { notModified: false, etag: cached.etag, resolved: cached.resolved };
      }
      const oca = inlineOca(input, s.config.defaultLocale);
      const request = {
        tenantDefaults: s.config.tenantDefaults[ctx.tenantId] ?? null,
        inlineOcaDigest: bundle === undefined ? null : createHash('sha256').update(canonicalJson(bundle)).digest('hex'),
      };
      const ticket = cache.ticket();
      // A conditional resolve, or one whose answer is kept, reads the ETag's inputs first (no document): when they
      // still give the client's ETag, the answer is 304; when they are those of the kept answer, that answer.
      // Otherwise (or unconditionally and not kept) the design is read in full.
      if (input.ifNoneMatch || cached?.resolved) {
        const validators = await s.readValidatorsForResolve(ctx.tenantId, designSelector);
        if (!validators) {
          if (cacheKey !== null) cache.delete(cacheKey);
          throw designNotFound();
        }
        const key = validatorsKey(validators);
        const current = cached?.validatorsKey === key ? cached : undefined;
        const etag = current?.etag ?? resolveEtag(validators, request, options);
        if (cacheKey !== null && current === undefined) cache.set(cacheKey, { validatorsKey: key, etag }, ticket);
        if (matchesIfNoneMatch(input.ifNoneMatch, etag)) return { notModified: true, etag };
        if (current?.resolved) return { notModified: false, etag, resolved: current.resolved };
      }
      const found = await s.readForResolve(ctx.tenantId, designSelector);
      if (!found) throw designNotFound();
      const layers: ResolveLayers = {
        record: found.stored.record,
        revision: found.stored.revision,
        ...request,
        snapshot: found.stored.sourceDocument,
        inlineOca: oca,
        variants: found.variants,
      };
      // The layers read may be newer than the validators were: the ETag is the one of what is answered.
      const validators = validatorsOf(layers);
      const etag = resolveEtag(validators, request, options);
      if (matchesIfNoneMatch(input.ifNoneMatch, etag)) return { notModified: true, etag };
      const resolved = resolveDesign(layers, options, etag);
      if (cacheKey !== null) cache.set(cacheKey, { validatorsKey: validatorsKey(validators), etag, resolved }, ticket);
      return { notModified: false, etag, resolved };
    },
  });
