import Type from 'typebox';
import { CATEGORY_PATTERN } from '../config.js';

/** Request and response schemas of the external reconciliation API (000 §4.3, §2.5, §2.6). */
export const LookupBody = Type.Object(
  {
    /** base64url without padding of an HMAC-SHA256: 43 characters. */
    identifierHash: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
    identifierType: Type.String({ minLength: 1, maxLength: 64 }),
  },
  { additionalProperties: false },
);

export const IdentityParams = Type.Object(
  { internalIdentityId: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);

export const AuxiliaryParams = Type.Object(
  { internalIdentityId: Type.String({ format: 'uuid' }), category: Type.String({ pattern: CATEGORY_PATTERN }) },
  { additionalProperties: false },
);

export const PutAuxiliaryBody = Type.Object(
  {
    /** A JSON object, opaque to the service; its size is checked on the canonical form stored. */
    data: Type.Object({}, { additionalProperties: true }),
    expiresAt: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

const Claims = Type.Record(Type.String(), Type.Unknown());
const Assurance = Type.Object({ acr: Type.String(), amr: Type.Array(Type.String()) });

export const IdentitySummaryResponse = Type.Object({
  internalIdentityId: Type.String(),
  claims: Claims,
  auxiliaryCategories: Type.Array(Type.String()),
  assurance: Assurance,
});

export const IdentityResponse = Type.Object({
  ...IdentitySummaryResponse.properties,
  bindings: Type.Object({
    walletBound: Type.Boolean(),
    federationBound: Type.Boolean(),
    lastAuthenticatedAt: Type.Union([Type.String(), Type.Null()]),
  }),
});

export const ClaimsResponse = Claims;

export const AuxiliaryDataResponse = Type.Object({
  category: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown()),
  storedBy: Type.String(),
  storedAt: Type.String(),
  expiresAt: Type.Union([Type.String(), Type.Null()]),
});

export const AuxiliaryStoredResponse = Type.Object({
  category: Type.String(),
  storedBy: Type.String(),
  storedAt: Type.String(),
  expiresAt: Type.Union([Type.String(), Type.Null()]),
});
