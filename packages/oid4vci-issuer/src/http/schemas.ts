import Type from 'typebox';

/** Request schemas of the offer endpoints (001 §2.3 web application offer; 001 §2.2 backend offer body). */
const ConfigurationId = Type.String({ minLength: 1, maxLength: 128 });

const QrCodeOpts = Type.Object(
  {
    /** Width of the PNG in pixels. */
    size: Type.Optional(Type.Integer({ minimum: 64, maximum: 1024 })),
    /** Quiet zone, in modules. */
    margin: Type.Optional(Type.Integer({ minimum: 0, maximum: 16 })),
    errorCorrectionLevel: Type.Optional(
      Type.Union([Type.Literal('L'), Type.Literal('M'), Type.Literal('Q'), Type.Literal('H')]),
    ),
    colorDark: Type.Optional(Type.String({ pattern: '^#[0-9A-Fa-f]{6}([0-9A-Fa-f]{2})?$' })),
    colorLight: Type.Optional(Type.String({ pattern: '^#[0-9A-Fa-f]{6}([0-9A-Fa-f]{2})?$' })),
  },
  { additionalProperties: false },
);

export const WebappOfferBody = Type.Object(
  {
    credential_configuration_ids: Type.Array(ConfigurationId, { minItems: 1, maxItems: 16 }),
    baseUri: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    credential_issuer: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    credentialDataSupplierInput: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    grants: Type.Optional(
      Type.Object(
        {
          'urn:ietf:params:oauth:grant-type:pre-authorized_code': Type.Optional(
            Type.Object(
              { 'pre-authorized_code': Type.Optional(Type.String({ minLength: 22, maxLength: 512 })) },
              { additionalProperties: true },
            ),
          ),
          authorization_code: Type.Optional(Type.Object({}, { additionalProperties: true })),
        },
        { additionalProperties: false },
      ),
    ),
    pinLength: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    qrCodeOpts: Type.Optional(QrCodeOpts),
    scheme: Type.Optional(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9+.-]{0,31}$' })),
  },
  { additionalProperties: false },
);

const Group = Type.Object(
  {
    contributorId: Type.String({ minLength: 1, maxLength: 128 }),
    phase: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    connectorFields: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 4096 }))),
    semanticAttributeSets: Type.Optional(
      Type.Array(
        Type.Object(
          {
            bundleId: Type.String({ minLength: 1, maxLength: 128 }),
            values: Type.Record(Type.String(), Type.Unknown()),
          },
          { additionalProperties: false },
        ),
        { maxItems: 64 },
      ),
    ),
    attributes: Type.Optional(
      Type.Array(
        Type.Object(
          { path: Type.String({ minLength: 1, maxLength: 256 }), value: Type.Unknown() },
          { additionalProperties: false },
        ),
        { maxItems: 256 },
      ),
    ),
  },
  { additionalProperties: false },
);

export const BackendOfferBody = Type.Object(
  {
    issuerId: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    credentialConfigurationIds: Type.Array(ConfigurationId, { minItems: 1, maxItems: 16 }),
    preAuthorizedCodeGrant: Type.Optional(Type.Boolean()),
    offerTtlSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 604_800 })),
    preSeededGroups: Type.Optional(Type.Array(Group, { maxItems: 32 })),
    /** Ours: a PIN for the pre-authorized grant, and the correlation id of the session. */
    pinLength: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    correlationId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:~-]+$' })),
  },
  { additionalProperties: false },
);

export const OfferParams = Type.Object({ offerId: Type.String({ minLength: 1, maxLength: 128 }) });
export const CorrelationParams = Type.Object({ correlation_id: Type.String({ minLength: 1, maxLength: 128 }) });
