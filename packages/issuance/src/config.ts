import Type, { type Static } from 'typebox';

/** The `issuance` configuration section (docs/configuration.md; decisions in packages/issuance/README.md). */
export const IssuanceConfigSchema = Type.Object(
  {
    /** Bounds of a session's `ttl_seconds` (001 §8 leaves them open): 1 minute to 7 days, default 1 hour. */
    sessionTtl: Type.Object(
      {
        defaultSeconds: Type.Integer({ minimum: 60, maximum: 604_800, default: 3600 }),
        minSeconds: Type.Integer({ minimum: 1, maximum: 604_800, default: 60 }),
        maxSeconds: Type.Integer({ minimum: 60, maximum: 2_592_000, default: 604_800 }),
      },
      { default: {}, additionalProperties: false },
    ),
    /**
     * Roles that may read a session's decrypted attribute bag (001 §5: "attribute readback for narrow support or
     * audit roles"). A platform administrator always may; a tenant administrator only when listed here.
     */
    attributeReaderRoles: Type.Array(Type.String({ minLength: 1 }), {
      default: ['issuance-support', 'issuance-auditor'],
    }),
    /** Lifetime of a callback capability token (001 §5 leaves it open): 15 minutes. */
    callbackTokenTtlSeconds: Type.Integer({ minimum: 30, maximum: 86_400, default: 900 }),
  },
  { default: {}, additionalProperties: false },
);

export type IssuanceConfig = Static<typeof IssuanceConfigSchema>;
