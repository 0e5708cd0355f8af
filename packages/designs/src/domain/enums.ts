/**
 * The closed value sets of the design registry. 001 §2.1 names some values of each set ("includes ...") and
 * leaves the complete sets "not shown"; the remaining values are ours (package README, Decisions).
 */
export const DESIGN_KINDS = ['CREDENTIAL', 'ISSUER', 'VERIFIER'] as const;
export type DesignKind = (typeof DESIGN_KINDS)[number];

export const HOSTING_MODES = ['LOCAL', 'EXTERNAL'] as const;
export type HostingMode = (typeof HOSTING_MODES)[number];

export const BINDING_KEYS = [
  'VCT',
  'CREDENTIAL_CONFIGURATION_ID',
  'DOCTYPE',
  'JSON_SCHEMA_ID',
  'OCA_CAPTURE_BASE',
  'CREDENTIAL_ISSUER',
  'CLIENT_ID',
] as const;
export type BindingKey = (typeof BINDING_KEYS)[number];

export const SOURCE_TYPES = [
  'OID4VCI_CREDENTIAL_CONFIGURATION',
  'OID4VCI_ISSUER_METADATA',
  'SD_JWT_VCT_METADATA',
  'OCA_BUNDLE',
  'W3C_RENDER_METHOD',
  'JSON_SCHEMA',
] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const PATH_KINDS = ['Property', 'Index', 'AnyIndex'] as const;
export type PathKind = (typeof PATH_KINDS)[number];

export const VALUE_KINDS = [
  'STRING',
  'NUMBER',
  'INTEGER',
  'BOOLEAN',
  'DATE',
  'DATE_TIME',
  'IMAGE',
  'OBJECT',
  'ARRAY',
] as const;
export type ValueKind = (typeof VALUE_KINDS)[number];

export const WIDGET_HINTS = [
  'TEXT',
  'MULTILINE_TEXT',
  'NUMBER',
  'DATE',
  'DATE_TIME',
  'CHECKBOX',
  'IMAGE',
  'EMAIL',
  'URL',
  'HIDDEN',
] as const;
export type WidgetHint = (typeof WIDGET_HINTS)[number];

export const RENDER_TARGETS = ['SIMPLE_CARD', 'DETAIL_VIEW', 'LIST_ITEM', 'SVG', 'PDF'] as const;
export type RenderTarget = (typeof RENDER_TARGETS)[number];

export const ASSET_TYPES = ['LOGO', 'BACKGROUND_IMAGE', 'SVG_TEMPLATE', 'PDF_TEMPLATE'] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

/** Fields of a design that its `lockedFields` may name: sources and request metadata never change them. */
export const LOCKABLE_FIELDS = ['alias', 'displays', 'claims', 'policyUri', 'termsOfServiceUri'] as const;
export type LockableField = (typeof LOCKABLE_FIELDS)[number];

export const isOneOf = <T extends string>(values: readonly T[], value: unknown): value is T =>
  typeof value === 'string' && (values as readonly string[]).includes(value);
