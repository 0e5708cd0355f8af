import Type, { type Static } from 'typebox';

const Colour = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$' });

/** A tenant's defaults, the lowest layer of every resolve (domain/resolve-design.ts). */
const TenantDefaults = Type.Object(
  {
    /** The locale shown when none of the preferred locales has a display. */
    defaultLocale: Type.Optional(Type.String({ minLength: 2, maxLength: 35 })),
    backgroundColor: Type.Optional(Colour),
    textColor: Type.Optional(Colour),
    logoUri: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  },
  { additionalProperties: false },
);

/** The `designs` configuration section (docs/configuration.md). */
export const DesignsConfigSchema = Type.Object(
  {
    /** The locale of last resort: a design's display in it is shown when no preferred locale matches. */
    defaultLocale: Type.String({ minLength: 2, maxLength: 35, default: 'en' }),
    /** Per tenant id: the defaults of every design of the tenant. */
    tenantDefaults: Type.Record(Type.String(), TenantDefaults, { default: {} }),
    /** Reads (get, list, find, resolve, downloads) are audited too when true; mutations always are. */
    auditReads: Type.Boolean({ default: false }),
    import: Type.Object(
      {
        timeoutSeconds: Type.Number({ minimum: 1, maximum: 60, default: 10 }),
        maxResponseBytes: Type.Integer({ minimum: 1024, maximum: 16 * 1024 * 1024, default: 1024 * 1024 }),
        maxRedirects: Type.Integer({ minimum: 0, maximum: 10, default: 3 }),
        /** How many `extends` of SD-JWT VC type metadata are followed. */
        maxExtendsDepth: Type.Integer({ minimum: 0, maximum: 10, default: 5 }),
        /**
         * Origins (`https://host:port`) fetched although they are on a private network or plain http: test and
         * development fixtures only.
         */
        allowPrivateNetworkOrigins: Type.Array(Type.String({ pattern: '^https?://[^/?#]+$' }), { default: [] }),
      },
      { default: {}, additionalProperties: false },
    ),
    /**
     * Resolved designs kept per process, each answered only after a read of the design's current ETag inputs
     * showed it is still current (commands/resolve-cache.ts); least recently used evicted beyond `maxEntries`, 0
     * keeps none.
     */
    resolveCache: Type.Object(
      { maxEntries: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 1000 }) },
      { default: {}, additionalProperties: false },
    ),
    assets: Type.Object(
      { maxBytes: Type.Integer({ minimum: 1024, maximum: 32 * 1024 * 1024, default: 2 * 1024 * 1024 }) },
      { default: {}, additionalProperties: false },
    ),
  },
  { default: {}, additionalProperties: false },
);

export type DesignsConfig = Static<typeof DesignsConfigSchema>;
