import { createHash } from 'node:crypto';
import type { LockableField } from './enums.js';
import { lookupLocale, tryCanonicalLocale } from './locales.js';
import { mergeDocuments } from './merge-layers.js';
import { pathKey } from './normalize-design.js';
import type { DesignDocument, DesignRecord, Display, PathElement, RenderVariant } from './records.js';
import { deriveRenderHints, type RenderHints } from './render-hints.js';

/**
 * Resolution (001 §2.1 "Resolved design", issue 17 item 3): the layers of a design merged into one, lowest first,
 * each later layer winning member by member:
 *   1. `tenant-defaults`: the tenant's configured colours and logo, filled into every display that has none, and its
 *      default locale;
 *   2. `snapshot`: the last mapping of the design's source (imported designs);
 *   3. `stored`: the design as stored (administrators' edits);
 *   4. `inline-oca`: an OCA bundle handed in with the request (`externalMetadata.ocaBundle`).
 * Fields the stored design lists in `lockedFields` keep the stored value whatever a later layer says. The locale is
 * chosen by BCP-47 lookup (RFC 4647 §3.4) over the preferred locales, falling back to the tenant's default locale,
 * then `designs.defaultLocale`, then the design's first display.
 *
 * The ETag is a SHA-256 over what the answer is made from: the resolver's version, the design's id, revision and
 * update time (a refresh of its source or any edit moves them), its variants' ids and update times, the tenant's
 * defaults, the inline bundle's digest and the request's locales and target. The answer is a deterministic
 * function of these, so the ETag is strong, stable across identical resolves and changed by any layer; and a
 * conditional resolve is answered without merging anything.
 */
const RESOLVER_VERSION = 1;
export interface TenantDefaults {
  defaultLocale?: string;
  backgroundColor?: string;
  textColor?: string;
  logoUri?: string;
}

export interface ResolveLayers {
  record: DesignRecord;
  revision: number;
  tenantDefaults: TenantDefaults | null;
  snapshot: DesignDocument | null;
  inlineOca: DesignDocument | null;
  /** SHA-256 of the inline bundle's canonical JSON, when one was given. */
  inlineOcaDigest: string | null;
  variants: readonly RenderVariant[];
}

export interface ResolveOptions {
  preferredLocales: readonly string[];
  renderTarget: string | null;
  defaultLocale: string;
}

export interface ResolvedClaim {
  path: PathElement[];
  key: string;
  label: string | null;
  labelLocale: string | null;
  mandatory: boolean;
  order: number;
  valueKind: string;
  widgetHint: string;
  selectiveDisclosure?: string;
}

export interface ResolvedDesign {
  design: DesignRecord;
  locale: string | null;
  display: Display | null;
  claims: ResolvedClaim[];
  renderVariants: RenderVariant[];
  renderHints: RenderHints;
  appliedLayers: string[];
  lockedFields: LockableField[];
  etag: string;
}

function storedDocument(record: DesignRecord): DesignDocument {
  const doc: DesignDocument = { displays: record.displays };
  if (record.claims !== undefined) doc.claims = record.claims;
  if (record.policyUri !== undefined) doc.policyUri = record.policyUri;
  if (record.termsOfServiceUri !== undefined) doc.termsOfServiceUri = record.termsOfServiceUri;
  return doc;
}

function applyTenantDefaults(displays: Display[], defaults: TenantDefaults): Display[] {
  return displays.map((d) => ({
    ...d,
    ...(d.backgroundColor === undefined && defaults.backgroundColor
      ? { backgroundColor: defaults.backgroundColor }
      : {}),
    ...(d.textColor === undefined && defaults.textColor ? { textColor: defaults.textColor } : {}),
    ...(d.logo === undefined && defaults.logoUri ? { logo: { uri: defaults.logoUri } } : {}),
  }));
}

/** The ETag inputs a design contributes: what the storage's validators read answers too (VALIDATORS_BATCH). */
export interface EtagValidators {
  designId: string;
  revision: number;
  updatedAt: string;
  /** `[id, updatedAt]` of each render variant, in the order the resolve lists them before matching. */
  variants: readonly (readonly [string, string])[];
}

export function validatorsOf(layers: ResolveLayers): EtagValidators {
  return {
    designId: layers.record.id,
    revision: layers.revision,
    updatedAt: layers.record.updatedAt,
    variants: layers.variants.map((v) => [v.id, v.updatedAt] as const),
  };
}

/**
 * The ETag from the design's validators and the request's other inputs. Both paths of a resolve compute it from
 * the same values in the same order: the full read (validatorsOf) and the conditional resolve's validators read.
 */
export function resolveEtag(
  validators: EtagValidators,
  request: Pick<ResolveLayers, 'tenantDefaults' | 'inlineOcaDigest'>,
  options: ResolveOptions,
): string {
  const inputs = JSON.stringify([
    RESOLVER_VERSION,
    validators.designId,
    validators.revision,
    validators.updatedAt,
    validators.variants,
    request.tenantDefaults,
    request.inlineOcaDigest,
    options.preferredLocales,
    options.renderTarget,
    options.defaultLocale,
  ]);
  return `"${createHash('sha256').update(inputs).digest('base64url')}"`;
}

/** The merged design; `etag` is the one the caller computed for these layers (resolveEtag), not hashed again. */
export function resolveDesign(
  layers: ResolveLayers,
  options: ResolveOptions,
  etag = resolveEtag(validatorsOf(layers), layers, options),
): ResolvedDesign {
  const { record } = layers;
  const stored = storedDocument(record);
  const appliedLayers: string[] = [];
  let doc: DesignDocument = { displays: [], ...(record.entityType === 'CREDENTIAL' ? { claims: [] } : {}) };
  if (layers.tenantDefaults) appliedLayers.push('tenant-defaults');
  if (layers.snapshot) {
    doc = mergeDocuments(doc, layers.snapshot);
    appliedLayers.push('snapshot');
  }
  doc = mergeDocuments(doc, stored);
  appliedLayers.push('stored');
  if (layers.inlineOca) {
    doc = mergeDocuments(doc, layers.inlineOca);
    appliedLayers.push('inline-oca');
  }
  const lockedFields = record.lockedFields ?? [];
  for (const field of lockedFields) {
    if (field === 'alias') continue;
    const value = stored[field];
    if (value === undefined) delete doc[field];
    else (doc as unknown as Record<string, unknown>)[field] = value;
  }
  if (layers.tenantDefaults) doc.displays = applyTenantDefaults(doc.displays, layers.tenantDefaults);

  const available = doc.displays.map((d) => d.locale);
  const tenantLocale = layers.tenantDefaults?.defaultLocale;
  const fallback =
    [tenantLocale, options.defaultLocale].map((l) => l && lookupLocale([l], available, null)).find((l) => l) ??
    available[0] ??
    null;
  const preferred = options.preferredLocales.map(tryCanonicalLocale).filter((l): l is string => l !== null);
  const locale = lookupLocale(preferred, available, fallback);
  const display = doc.displays.find((d) => d.locale === locale) ?? null;

  // Each claim's key is computed once (for the order and the answer), and the label's fallback lookup runs only
  // when the preferred locales find no label: a resolve does this for every claim of every request.
  const labelPreference = locale ? [...preferred, locale] : preferred;
  const defaultPreference = [options.defaultLocale];
  const keyed = (doc.claims ?? []).map((claim) => ({ claim, key: pathKey(claim.path) }));
  keyed.sort((a, b) => a.claim.order - b.claim.order || a.key.localeCompare(b.key));
  const claims: ResolvedClaim[] = keyed.map(({ claim: c, key }) => {
    const labelLocales = c.labels.map((l) => l.locale);
    const labelLocale =
      lookupLocale(labelPreference, labelLocales, null) ??
      lookupLocale(defaultPreference, labelLocales, labelLocales[0] ?? null);
    return {
      path: c.path,
      key,
      label: c.labels.find((l) => l.locale === labelLocale)?.label ?? null,
      labelLocale,
      mandatory: c.mandatory,
      order: c.order,
      valueKind: c.valueKind,
      widgetHint: c.widgetHint,
      ...(c.selectiveDisclosure ? { selectiveDisclosure: c.selectiveDisclosure } : {}),
    };
  });

  const renderVariants = layers.variants
    .filter((v) => options.renderTarget === null || v.renderTarget === options.renderTarget)
    .filter((v) => v.locales.length === 0 || (locale !== null && lookupLocale([locale], v.locales, null) !== null))
    .sort(
      (a, b) =>
        b.priority - a.priority ||
        b.locales.length - a.locales.length ||
        a.createdAt.localeCompare(b.createdAt) ||
        a.id.localeCompare(b.id),
    );

  const renderHints = deriveRenderHints({
    renderTarget: options.renderTarget,
    locale,
    display,
    variant: renderVariants[0] ?? null,
    claimOrder: claims.filter((c) => c.widgetHint !== 'HIDDEN').map((c) => c.key),
  });

  const design: DesignRecord = { ...record, ...doc };
  if (doc.claims === undefined) delete design.claims;
  return { design, locale, display, claims, renderVariants, renderHints, appliedLayers, lockedFields, etag };
}

/** RFC 9110 §13.1.2: If-None-Match holds `*` or a list of entity tags, compared weakly. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  // The usual case, a client sending back the one ETag it was given: equal strings match under any comparison.
  if (header === etag) return true;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === opaque);
}
