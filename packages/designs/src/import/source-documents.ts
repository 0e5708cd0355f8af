import { createHash } from 'node:crypto';
import type { DesignKind } from '../domain/enums.js';
import type { Binding, DesignDocument, DesignInput, DesignRecord } from '../domain/records.js';
import type { MapContext, MappedDesign, SourceMapper } from '../mappers/index.js';
import type { DesignsServices } from '../services.js';
import { sourceUnusable, type SourceResponse } from './source-fetcher.js';

/** What imports and refreshes share: fetching through the SSRF-protected fetcher, parsing, mapping, merging. */
export function parseSourceJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw sourceUnusable('the document is not JSON');
  }
}

export const sha256Hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export function fetchSource(
  s: DesignsServices,
  mapper: SourceMapper,
  url: string,
  validators: { etag?: string | null; lastModified?: string | null } = {},
): Promise<SourceResponse> {
  return s.fetcher.fetch(url, {
    accept: mapper.accept,
    contentTypes: mapper.contentTypes,
    ...(validators.etag ? { etag: validators.etag } : {}),
    ...(validators.lastModified ? { lastModified: validators.lastModified } : {}),
  });
}

export function mapSource(
  s: DesignsServices,
  mapper: SourceMapper,
  payload: unknown,
  at: { kind: DesignKind; sourceUrl: string; requestBindings: readonly Binding[] },
): Promise<MappedDesign[]> {
  const ctx: MapContext = {
    ...at,
    defaultLocale: s.config.defaultLocale,
    maxExtendsDepth: s.config.import.maxExtendsDepth,
    async fetchJson(url) {
      const response = await fetchSource(s, mapper, url);
      return { json: parseSourceJson(response.body), bytes: response.body };
    },
  };
  return mapper.map(payload, ctx);
}

/** The bindings of an imported design: the request's, then the source's own (each pair once). */
export function mergeBindings(request: readonly Binding[], mapped: readonly Binding[]): Binding[] {
  const out: Binding[] = [];
  for (const b of [...request, ...mapped])
    if (!out.some((o) => o.key === b.key && o.value === b.value)) out.push({ key: b.key, value: b.value });
  return out;
}

/** The mapping a stored design came from: the one sharing a binding with it, else the only one. */
export function mappedFor(stored: DesignRecord, mapped: readonly MappedDesign[]): MappedDesign | undefined {
  const shared = mapped.find((m) =>
    m.bindings.some((b) => stored.bindings.some((s) => s.key === b.key && s.value === b.value)),
  );
  return shared ?? (mapped.length === 1 ? mapped[0] : undefined);
}

/**
 * A refreshed design (001 §3): the source's new mapping replaces displays, claims and policy URIs, except the
 * fields the design locks (`lockedFields`), which keep the stored value. Alias, hosting mode and bindings stay.
 */
export function refreshedInput(stored: DesignRecord, mapped: DesignDocument): DesignInput {
  const locked = new Set(stored.lockedFields ?? []);
  const take = <K extends 'displays' | 'claims' | 'policyUri' | 'termsOfServiceUri'>(field: K) =>
    locked.has(field) ? stored[field] : (mapped[field] ?? stored[field]);
  const input: DesignInput = {
    bindings: stored.bindings,
    alias: stored.alias,
    hostingMode: stored.hostingMode,
    displays: take('displays') ?? [],
  };
  const claims = take('claims');
  if (claims !== undefined && stored.entityType === 'CREDENTIAL') input.claims = claims;
  const policyUri = take('policyUri');
  if (policyUri !== undefined) input.policyUri = policyUri;
  const tos = take('termsOfServiceUri');
  if (tos !== undefined) input.termsOfServiceUri = tos;
  if (stored.lockedFields !== undefined) input.lockedFields = stored.lockedFields;
  return input;
}
