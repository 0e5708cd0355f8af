import Type, { type Static } from 'typebox';
import { DIGEST_ALGORITHMS, SIGNATURE_ALGORITHMS } from '../domain/algorithms.js';
import { ACCESS_LEVELS, PERMISSIONS } from '../domain/key-entry.js';
import {
  CERTIFICATION_PERMISSIONS,
  COLORS,
  HORIZONTAL_ALIGNMENTS,
  IMAGE_SCALINGS,
  PADES_MODES,
  ROTATIONS,
  TEXT_POSITIONS,
  TEXT_WRAPPINGS,
  VERTICAL_ALIGNMENTS,
} from '../domain/pades-parameters.js';
import { KEY_TYPES } from '../keys/key-provider.js';

/** Request and response schemas of the signing API (002 §2.1, §4.1). */
const literals = <const T extends string[]>(values: readonly [...T]) => Type.Enum<T>(values);
const Base64 = Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$' });
const Id = Type.String({ minLength: 1, maxLength: 200 });
const FloatString = Type.String({ maxLength: 32 });
const closed = { additionalProperties: false } as const;

export const OrigData = Type.Object(
  {
    name: Type.String({ maxLength: 500 }),
    mimeType: Type.String({ maxLength: 200 }),
    content: Base64,
    password: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  closed,
);

export const ConfigKeyBinding = Type.Object(
  { kid: Id, signatureConfigId: Type.String({ maxLength: 200 }), keyProviderId: Id },
  closed,
);

const FieldParameters = Type.Object(
  {
    fieldId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    page: Type.Optional(Type.Integer({ minimum: 1 })),
    originX: Type.Optional(FloatString),
    originY: Type.Optional(FloatString),
    width: Type.Optional(FloatString),
    height: Type.Optional(FloatString),
  },
  closed,
);

const TextParameters = Type.Object(
  {
    signerTextPosition: Type.Optional(literals(TEXT_POSITIONS)),
    signerTextVerticalAlignment: Type.Optional(literals(['TOP', 'MIDDLE', 'BOTTOM'] as const)),
    signerTextHorizontalAlignment: Type.Optional(literals(['LEFT', 'CENTER', 'RIGHT'] as const)),
    text: Type.Optional(Type.String({ maxLength: 2000 })),
    font: Type.Optional(Type.String({ maxLength: 20 * 1024 * 1024 })),
    size: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 200 })),
    textWrapping: Type.Optional(literals(TEXT_WRAPPINGS)),
    padding: Type.Optional(FloatString),
    textColor: Type.Optional(literals(COLORS)),
    backgroundColor: Type.Optional(literals(COLORS)),
  },
  closed,
);

const VisualSignatureParameters = Type.Object(
  {
    image: Type.Optional(OrigData),
    zoom: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    backgroundColor: Type.Optional(literals(COLORS)),
    dpi: Type.Optional(Type.Integer({ minimum: 1, maximum: 2400 })),
    rotation: Type.Optional(literals(ROTATIONS)),
    alignmentHorizontal: Type.Optional(literals(HORIZONTAL_ALIGNMENTS)),
    alignmentVertical: Type.Optional(literals(VERTICAL_ALIGNMENTS)),
    imageScaling: Type.Optional(literals(IMAGE_SCALINGS)),
    textParameters: Type.Optional(TextParameters),
    fieldParameters: Type.Optional(FieldParameters),
  },
  closed,
);

const PadesSignatureFormParameters = Type.Object(
  {
    mode: Type.Optional(literals(PADES_MODES)),
    reason: Type.Optional(Type.String({ maxLength: 1000 })),
    contactInfo: Type.Optional(Type.String({ maxLength: 1000 })),
    location: Type.Optional(Type.String({ maxLength: 1000 })),
    signerName: Type.Optional(Type.String({ maxLength: 1000 })),
    passwordProtection: Type.Optional(Type.String({ maxLength: 1024 })),
    signinTimeZone: Type.Optional(Type.String({ maxLength: 32 })),
    certificationPermission: Type.Optional(literals(CERTIFICATION_PERMISSIONS)),
    visualSignatureParameters: Type.Optional(VisualSignatureParameters),
  },
  closed,
);

export const SignatureFormParameters = Type.Object(
  { padesSignatureFormParameters: Type.Optional(PadesSignatureFormParameters) },
  closed,
);

const SignMode = literals(['DIGEST', 'DOCUMENT'] as const);
const DigestAlgorithm = literals(DIGEST_ALGORITHMS);
const SignatureAlgorithm = literals(SIGNATURE_ALGORITHMS);
const IsoDate = Type.String({ format: 'date-time' });

export const SignInput = Type.Object(
  {
    name: Type.String({ maxLength: 500 }),
    input: Base64,
    signMode: SignMode,
    digestAlgorithm: DigestAlgorithm,
    signingDate: IsoDate,
    binding: ConfigKeyBinding,
    signatureFormParameters: Type.Optional(SignatureFormParameters),
    password: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  closed,
);

const Certificate = Type.Object({
  value: Type.String(),
  fingerPrint: Type.String(),
  serialNumber: Type.String(),
  issuerDN: Type.String(),
  subjectDN: Type.String(),
  notBefore: Type.String(),
  notAfter: Type.String(),
  keyUsage: Type.Array(Type.String()),
});

export const KeyEntry = Type.Object({
  attributes: Type.Array(Type.Object({ name: Type.String(), value: Type.String() })),
  kid: Type.String(),
  providerId: Type.String(),
  encryptionAlgorithm: Type.String(),
  publicKey: Type.Object({ algorithm: Type.String(), value: Type.String(), format: Type.String() }),
  certificate: Type.Optional(Certificate),
  certificateChain: Type.Array(Certificate),
});

export const Signature = Type.Object(
  {
    value: Base64,
    algorithm: SignatureAlgorithm,
    signMode: SignMode,
    keyEntry: Type.Optional(Type.Object({}, { additionalProperties: true })),
    binding: ConfigKeyBinding,
    date: IsoDate,
    signatureFormParameters: Type.Optional(SignatureFormParameters),
    password: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  closed,
);

const AccessRestrictionsIn = Type.Object(
  {
    /** Set from the caller; a value given here is ignored (002 §2.1: in responses). */
    subjectId: Type.Optional(Type.String({ maxLength: 500 })),
    roleRestrictions: Type.Optional(
      Type.Array(
        Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), permission: literals(PERMISSIONS) }, closed),
        {
          maxItems: 50,
        },
      ),
    ),
    accessLevel: Type.Optional(literals(ACCESS_LEVELS)),
  },
  closed,
);

export const AccessRestrictions = Type.Object({
  subjectId: Type.String(),
  roleRestrictions: Type.Array(Type.Object({ name: Type.String(), permission: Type.String() })),
  accessLevel: Type.String(),
});

const KidPattern = Type.String({ pattern: '^[A-Za-z0-9._:-]{1,200}$' });

export const DetermineBody = Type.Object(
  {
    origData: OrigData,
    signMode: SignMode,
    binding: ConfigKeyBinding,
    signatureFormParametersOverride: Type.Optional(SignatureFormParameters),
  },
  closed,
);
export const DigestBody = Type.Object({ signInput: SignInput }, closed);
export const CreateSignatureBody = Type.Object(
  {
    signInput: SignInput,
    maskGenFunction: Type.Optional(Type.Literal('MGF1')),
    signatureAlgorithm: Type.Optional(SignatureAlgorithm),
  },
  closed,
);
export const MergeBody = Type.Object({ origData: OrigData, signature: Signature }, closed);
export const ProviderParams = Type.Object({ providerId: KidPattern }, closed);
export const KidParams = Type.Object({ kid: KidPattern }, closed);
export const ImportCertificateBody = Type.Object(
  {
    kid: KidPattern,
    certificate: Base64,
    certificateChain: Type.Optional(Type.Array(Base64, { maxItems: 10 })),
    accessRestrictions: Type.Optional(AccessRestrictionsIn),
    /** The provider key the certificate belongs to; found by public key when absent. */
    providerKid: Type.Optional(KidPattern),
  },
  closed,
);
export const LinkKeyEntryBody = Type.Object(
  { kid: KidPattern, providerKid: KidPattern, accessRestrictions: Type.Optional(AccessRestrictionsIn) },
  closed,
);
export const GenerateKeyBody = Type.Object(
  { keyProviderId: KidPattern, keyType: literals(KEY_TYPES), providerKid: Type.Optional(KidPattern) },
  closed,
);

export const SignInputResponse = Type.Object({ signInput: SignInput });
export const SignatureResponse = Type.Object({ signature: Type.Object({}, { additionalProperties: true }) });
export const SignOutputResponse = Type.Object({
  signOutput: Type.Object({
    name: Type.String(),
    mimeType: Type.String(),
    value: Type.String(),
    digestAlgorithm: Type.String(),
    signature: Type.Object({}, { additionalProperties: true }),
  }),
});
export const KeyEntryResponse = Type.Object({ keyEntry: KeyEntry, accessRestrictions: AccessRestrictions });
export const GeneratedKeyResponse = Type.Object({
  keyProviderId: Type.String(),
  providerKid: Type.String(),
  publicKey: Type.Object({ algorithm: Type.String(), value: Type.String(), format: Type.String() }),
});

export type DetermineBodyT = Static<typeof DetermineBody>;
export type SignInputT = Static<typeof SignInput>;
export type SignatureT = Static<typeof Signature>;
export type OrigDataT = Static<typeof OrigData>;
export type FormParametersT = Static<typeof SignatureFormParameters>;
export type AccessRestrictionsInT = Static<typeof AccessRestrictionsIn>;
export type ImportCertificateBodyT = Static<typeof ImportCertificateBody>;
export type LinkKeyEntryBodyT = Static<typeof LinkKeyEntryBody>;
export type GenerateKeyBodyT = Static<typeof GenerateKeyBody>;
