import Type, { type Static } from 'typebox';

/**
 * The `signing` configuration section (docs/configuration.md; package README).
 *
 * - `signatureConfigs`: what `binding.signatureConfigId` names (002 §2.1 ConfigKeyBinding): the digest algorithm,
 *   the default signature algorithm and the default form parameters, which `signatureFormParametersOverride`
 *   overrides member by member.
 * - `pkcs11`: PKCS #11 key providers (graphene-pk11): library, token, PIN, and the tenants allowed to use them.
 * - `fonts`: TrueType fonts by name for visible signature text (`textParameters.font`).
 */
const DIGESTS = ['SHA256', 'SHA384', 'SHA512', 'SHA3_256', 'SHA3_512'] as const;
const DigestAlgorithm = Type.Enum(DIGESTS);

const SignatureConfig = Type.Object(
  {
    digestAlgorithm: DigestAlgorithm,
    signatureAlgorithm: Type.Optional(Type.String()),
    /** Default form parameters (002 §2.1): `{ padesSignatureFormParameters: {...} }` for PAdES. */
    signatureFormParameters: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);

const Pkcs11Provider = Type.Object(
  {
    libraryPath: Type.String({ minLength: 1 }),
    tokenLabel: Type.String({ minLength: 1 }),
    pin: Type.String({ minLength: 1 }),
    /** Tenants that may link and use the token's keys. */
    tenants: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
  },
  { additionalProperties: false },
);

export const SigningConfigSchema = Type.Object(
  {
    signatureConfigs: Type.Record(Type.String({ minLength: 1 }), SignatureConfig, {
      default: {
        default: { digestAlgorithm: 'SHA256' },
        pades: {
          digestAlgorithm: 'SHA256',
          signatureFormParameters: { padesSignatureFormParameters: { mode: 'APPROVAL' } },
        },
      },
    }),
    /** Largest document (decoded bytes) the API accepts; requests carrying more answer 413. */
    maxDocumentBytes: Type.Integer({ minimum: 1024, default: 32 * 1024 * 1024 }),
    /**
     * How long a prepared signature stays mergeable: the merge step refuses a signature whose signing date is older
     * (or later than now by more than the clock skew). The client carries the document between the steps.
     */
    signatureValiditySeconds: Type.Integer({ minimum: 1, default: 3600 }),
    clockSkewSeconds: Type.Integer({ minimum: 0, default: 120 }),
    /**
     * How long determine, create digest and merge reuse a key entry they read (flow/recent-key-entries.ts); 0 reads
     * it every time. Create signature always reads it.
     */
    keyEntryCacheSeconds: Type.Integer({ minimum: 0, default: 5 }),
    pkcs11: Type.Record(Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }), Pkcs11Provider, { default: {} }),
    fonts: Type.Record(Type.String({ minLength: 1 }), Type.String({ minLength: 1 }), { default: {} }),
  },
  { default: {}, additionalProperties: false },
);

export type SigningConfig = Static<typeof SigningConfigSchema>;
