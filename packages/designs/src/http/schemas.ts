import Type, { type TSchema } from 'typebox';
import {
  ASSET_TYPES,
  BINDING_KEYS,
  DESIGN_KINDS,
  HOSTING_MODES,
  LOCKABLE_FIELDS,
  PATH_KINDS,
  RENDER_TARGETS,
  SOURCE_TYPES,
  VALUE_KINDS,
  WIDGET_HINTS,
  type DesignKind,
} from '../domain/enums.js';

/** Request and response schemas of the design registry (001 §2.1, §4.1). */
const Enum = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const Uri = Type.String({ minLength: 1, maxLength: 2048, format: 'uri' });
const Colour = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$' });
/** Shape only; Intl.getCanonicalLocales decides (domain/locales.ts), so the field is named either way. */
const Locale = Type.String({ minLength: 1, maxLength: 35 });
const Uuid = Type.String({ format: 'uuid' });

export const BindingSchema = Type.Object(
  { key: Enum(BINDING_KEYS), value: Text(512) },
  { additionalProperties: false },
);
const ImageRef = Type.Object({ uri: Uri, altText: Type.Optional(Text(512)) }, { additionalProperties: false });

const displayMembers = {
  locale: Locale,
  name: Text(256),
  description: Type.Optional(Text(2048)),
  logo: Type.Optional(ImageRef),
  backgroundColor: Type.Optional(Colour),
  textColor: Type.Optional(Colour),
};

/** A display per kind: credential (OpenID4VCI §12.2.4 rendering), issuer (§12.2.4 issuer display), verifier. */
const DISPLAYS: Record<DesignKind, TSchema> = {
  CREDENTIAL: Type.Object(
    { ...displayMembers, backgroundImage: Type.Optional(ImageRef) },
    { additionalProperties: false },
  ),
  ISSUER: Type.Object(displayMembers, { additionalProperties: false }),
  VERIFIER: Type.Object({ ...displayMembers, purpose: Type.Optional(Text(2048)) }, { additionalProperties: false }),
};

export const ClaimSchema = Type.Object(
  {
    path: Type.Array(Type.Object({ kind: Enum(PATH_KINDS), name: Text(256) }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: 16,
    }),
    labels: Type.Array(Type.Object({ locale: Locale, label: Text(256) }, { additionalProperties: false }), {
      maxItems: 64,
    }),
    mandatory: Type.Boolean(),
    order: Type.Integer({ minimum: 0, maximum: 100000 }),
    valueKind: Enum(VALUE_KINDS),
    widgetHint: Enum(WIDGET_HINTS),
    selectiveDisclosure: Type.Optional(Enum(['always', 'allowed', 'never'] as const)),
  },
  { additionalProperties: false },
);

/**
 * The body of a create or an update. Server-assigned members of a record read back (id, tenantId, timestamps,
 * source) are accepted and ignored, so that a client may send back what it read; the tenant is never taken from
 * the body (001 §5).
 */
export function designBody(kind: DesignKind) {
  return Type.Object(
    {
      entityType: Type.Optional(Type.Literal(kind)),
      bindings: Type.Array(BindingSchema, { maxItems: 32 }),
      alias: Text(256),
      hostingMode: Enum(HOSTING_MODES),
      displays: Type.Array(DISPLAYS[kind], { maxItems: 64 }),
      ...(kind === 'CREDENTIAL' ? { claims: Type.Optional(Type.Array(ClaimSchema, { maxItems: 512 })) } : {}),
      ...(kind === 'CREDENTIAL' ? {} : { policyUri: Type.Optional(Uri), termsOfServiceUri: Type.Optional(Uri) }),
      lockedFields: Type.Optional(Type.Array(Enum(LOCKABLE_FIELDS), { maxItems: LOCKABLE_FIELDS.length })),
      id: Type.Optional(Type.String({ maxLength: 64 })),
      tenantId: Type.Optional(Type.String({ maxLength: 64 })),
      createdAt: Type.Optional(Type.String({ maxLength: 64 })),
      updatedAt: Type.Optional(Type.String({ maxLength: 64 })),
      sourceType: Type.Optional(Enum(SOURCE_TYPES)),
      sourceUrl: Type.Optional(Type.String({ maxLength: 2048 })),
      snapshotId: Type.Optional(Type.String({ maxLength: 64 })),
    },
    { additionalProperties: false },
  );
}

/** Typed loosely: the handlers return DesignRecord, which the schema describes member for member. */
export function designRecord(kind: DesignKind): TSchema {
  return Type.Object({
    id: Type.String(),
    tenantId: Type.String(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    entityType: Type.Literal(kind),
    bindings: Type.Array(BindingSchema),
    alias: Type.String(),
    hostingMode: Type.String(),
    displays: Type.Array(DISPLAYS[kind]),
    ...(kind === 'CREDENTIAL' ? { claims: Type.Optional(Type.Array(ClaimSchema)) } : {}),
    ...(kind === 'CREDENTIAL'
      ? {}
      : { policyUri: Type.Optional(Type.String()), termsOfServiceUri: Type.Optional(Type.String()) }),
    lockedFields: Type.Optional(Type.Array(Type.String())),
    sourceType: Type.Optional(Type.String()),
    sourceUrl: Type.Optional(Type.String()),
    snapshotId: Type.Optional(Type.String()),
  });
}

export const DesignIdParams = Type.Object({ designId: Uuid }, { additionalProperties: false });
export const BindingParams = Type.Object(
  { bindingKey: Type.String({ minLength: 1, maxLength: 64 }), bindingValue: Text(512) },
  { additionalProperties: false },
);

/** Unknown values of the enum filters are dropped by the command (001 §4.1), so they are plain strings here. */
export const ListQuery = Type.Object(
  {
    entityType: Type.Optional(Type.String({ maxLength: 64 })),
    hostingMode: Type.Optional(Type.String({ maxLength: 64 })),
    bindingKey: Type.Optional(Type.String({ maxLength: 64 })),
    bindingValue: Type.Optional(Type.String({ maxLength: 512 })),
    aliasContains: Type.Optional(Type.String({ maxLength: 256 })),
    sourceType: Type.Optional(Type.String({ maxLength: 64 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);

export const ImportBody = Type.Object(
  {
    entityType: Enum(DESIGN_KINDS),
    bindings: Type.Array(BindingSchema, { maxItems: 32 }),
    alias: Text(256),
    sourceUrl: Type.String({ minLength: 1, maxLength: 2048 }),
    sourceType: Enum(SOURCE_TYPES),
  },
  { additionalProperties: false },
);

export const ResolveBody = Type.Object(
  {
    designId: Type.Optional(Uuid),
    binding: Type.Optional(BindingSchema),
    bindingKey: Type.Optional(Enum(BINDING_KEYS)),
    bindingValue: Type.Optional(Text(512)),
    preferredLocales: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 16 })),
    renderTarget: Type.Optional(Enum(RENDER_TARGETS)),
    externalMetadata: Type.Optional(
      Type.Object(
        { ocaBundle: Type.Optional(Type.Object({}, { additionalProperties: true })) },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: false },
);

export const RenderVariantBody = Type.Object(
  {
    designId: Uuid,
    renderTarget: Enum(RENDER_TARGETS),
    name: Text(256),
    locales: Type.Array(Locale, { maxItems: 64, default: [] }),
    priority: Type.Integer({ minimum: -1000, maximum: 1000, default: 0 }),
    backgroundColor: Type.Optional(Colour),
    textColor: Type.Optional(Colour),
    backgroundImage: Type.Optional(ImageRef),
    logo: Type.Optional(ImageRef),
    template: Type.Optional(
      Type.Object(
        { assetType: Enum(['SVG_TEMPLATE', 'PDF_TEMPLATE'] as const), locale: Locale },
        { additionalProperties: false },
      ),
    ),
    templateUri: Type.Optional(Uri),
    claimPaths: Type.Optional(Type.Array(Text(512), { maxItems: 64 })),
    id: Type.Optional(Type.String({ maxLength: 64 })),
    tenantId: Type.Optional(Type.String({ maxLength: 64 })),
    createdAt: Type.Optional(Type.String({ maxLength: 64 })),
    updatedAt: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const RenderVariantRecord = Type.Object({
  id: Type.String(),
  tenantId: Type.String(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  designId: Type.String(),
  renderTarget: Type.String(),
  name: Type.String(),
  locales: Type.Array(Type.String()),
  priority: Type.Integer(),
  backgroundColor: Type.Optional(Type.String()),
  textColor: Type.Optional(Type.String()),
  backgroundImage: Type.Optional(ImageRef),
  logo: Type.Optional(ImageRef),
  template: Type.Optional(Type.Object({ assetType: Type.String(), locale: Type.String() })),
  templateUri: Type.Optional(Type.String()),
  claimPaths: Type.Optional(Type.Array(Type.String())),
});

export const VariantIdParams = Type.Object({ variantId: Uuid }, { additionalProperties: false });
export const VariantListQuery = Type.Object(
  { designId: Type.Optional(Uuid), renderTarget: Type.Optional(Type.String({ maxLength: 64 })) },
  { additionalProperties: false },
);

export const SnapshotIdParams = Type.Object({ snapshotId: Uuid }, { additionalProperties: false });

export const AssetParams = Type.Object(
  { designId: Uuid, locale: Locale, assetType: Enum(ASSET_TYPES) },
  { additionalProperties: false },
);

export const AssetReference = Type.Object({
  designId: Type.String(),
  locale: Type.String(),
  assetType: Type.String(),
  contentType: Type.String(),
  size: Type.Integer(),
  sha256: Type.String(),
  uri: Type.String(),
});

export const SnapshotRefreshResult = Type.Object({
  snapshotId: Type.String(),
  status: Type.Union([Type.Literal('UNCHANGED'), Type.Literal('UPDATED')]),
  fetchedAt: Type.String(),
  checkedAt: Type.String(),
  etag: Type.Optional(Type.String()),
  lastModified: Type.Optional(Type.String()),
  designIds: Type.Array(Type.String()),
});

/** The resolved design (001 §2.1): nested members are described in the package README. */
export const ResolvedDesignSchema = Type.Object({
  design: Type.Unknown({ description: 'The merged design record' }),
  locale: Type.Union([Type.String(), Type.Null()]),
  display: Type.Unknown({ description: 'The display of the chosen locale' }),
  claims: Type.Array(Type.Unknown(), { description: 'Claims in order, each with the label of the chosen locale' }),
  renderVariants: Type.Array(Type.Unknown()),
  renderHints: Type.Unknown(),
  appliedLayers: Type.Array(Type.String()),
  lockedFields: Type.Array(Type.String()),
  etag: Type.String(),
});
