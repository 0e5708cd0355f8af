import type {
  BindingKey,
  DesignKind,
  HostingMode,
  LockableField,
  PathKind,
  RenderTarget,
  SourceType,
  ValueKind,
  WidgetHint,
} from './enums.js';

/** 001 §2.1: a binding ties a design to the identifier a credential or a party carries. */
export interface Binding {
  key: BindingKey;
  value: string;
}

export interface ImageRef {
  uri: string;
  altText?: string;
}

/**
 * One locale's display (001 §2.1 `{locale, name, description}`), with the rendering members OpenID4VCI 1.0
 * §12.2.4 gives a credential display (logo, background colour and image, text colour). A verifier's display also
 * carries its `purpose` text (why it asks for credentials, shown to the holder).
 */
export interface Display {
  locale: string;
  name: string;
  description?: string;
  purpose?: string;
  logo?: ImageRef;
  backgroundColor?: string;
  backgroundImage?: ImageRef;
  textColor?: string;
}

export interface PathElement {
  kind: PathKind;
  name: string;
}

export interface ClaimLabel {
  locale: string;
  label: string;
}

export interface Claim {
  path: PathElement[];
  labels: ClaimLabel[];
  mandatory: boolean;
  order: number;
  valueKind: ValueKind;
  widgetHint: WidgetHint;
  /** SD-JWT VC type metadata `sd`: always, allowed or never selectively disclosable. */
  selectiveDisclosure?: 'always' | 'allowed' | 'never';
}

/** The editable part of a design, kept as one JSON document. Which members a kind uses: see DESIGN_FIELDS. */
export interface DesignDocument {
  displays: Display[];
  claims?: Claim[];
  policyUri?: string;
  termsOfServiceUri?: string;
  lockedFields?: LockableField[];
}

/** What a create or update carries. */
export interface DesignInput extends DesignDocument {
  bindings: Binding[];
  alias: string;
  hostingMode: HostingMode;
}

/** A stored design record (001 §2.1), as the API returns it. */
export interface DesignRecord extends DesignInput {
  id: string;
  tenantId: string;
  createdAt: string;
  updatedAt: string;
  entityType: DesignKind;
  sourceType?: SourceType;
  sourceUrl?: string;
  snapshotId?: string;
}

/** A stored design with what only the service reads: the last mapping of its source, and its revision. */
export interface StoredDesign {
  record: DesignRecord;
  sourceDocument: DesignDocument | null;
  revision: number;
}

/** A render variant (001 §4.1 "Render variants"; fields not shown: ours). */
export interface RenderVariantInput {
  designId: string;
  renderTarget: RenderTarget;
  name: string;
  /** BCP-47 tags the variant is for; empty: every locale. */
  locales: string[];
  /** Higher first when several variants match. */
  priority: number;
  backgroundColor?: string;
  textColor?: string;
  backgroundImage?: ImageRef;
  logo?: ImageRef;
  /** An SVG or PDF template asset of the design, by locale and type. */
  template?: { assetType: 'SVG_TEMPLATE' | 'PDF_TEMPLATE'; locale: string };
  /** A template published elsewhere (SD-JWT VC `svg_templates`, a W3C render method's template). */
  templateUri?: string;
  /** Paths (dotted names) of the claims the variant shows, in order. */
  claimPaths?: string[];
}

export interface RenderVariant extends RenderVariantInput {
  id: string;
  tenantId: string;
  createdAt: string;
  updatedAt: string;
}
