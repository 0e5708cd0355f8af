import type { DesignKind, SourceType } from '../domain/enums.js';
import type { Binding, DesignDocument, RenderVariantInput } from '../domain/records.js';

/**
 * One mapper per DesignSourceType (001 §2.1): a fetched document becomes one or more designs. Pure but for
 * `fetchJson`, which follows references (SD-JWT VC `extends`) through the same SSRF-protected fetcher.
 */
export interface MappedDesign {
  /** Bindings the source itself gives (VCT, CREDENTIAL_CONFIGURATION_ID, CREDENTIAL_ISSUER, ...). */
  bindings: Binding[];
  document: DesignDocument;
  /** A suffix that tells designs of one source apart (the credential configuration id). */
  label?: string;
  variants?: Omit<RenderVariantInput, 'designId'>[];
}

export interface MapContext {
  kind: DesignKind;
  sourceUrl: string;
  /** The bindings of the import request (a CREDENTIAL_CONFIGURATION_ID selects one configuration). */
  requestBindings: readonly Binding[];
  /** The locale of texts that carry none (JSON Schema, plain strings). */
  defaultLocale: string;
  maxExtendsDepth: number;
  fetchJson(url: string): Promise<{ json: unknown; bytes: Buffer }>;
}

export interface SourceMapper {
  sourceType: SourceType;
  /** The kinds of design this source can make. */
  kinds: readonly DesignKind[];
  accept: string;
  contentTypes: readonly string[];
  map(payload: unknown, ctx: MapContext): Promise<MappedDesign[]>;
}
