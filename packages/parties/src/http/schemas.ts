import Type, { type TObject, type TProperties, type TSchema } from 'typebox';
import type { PartyType } from '../domain/party-kinds.js';

/**
 * Request schemas of the party API (001 §2.5, §4.4). Fields beyond those the specification names are "not shown"
 * there; these are ours (README.md, Decisions). Every string is bounded, every object closed, so that a body that
 * is not what we store is refused with 400 naming the field.
 */
export const Id = Type.String({ format: 'uuid' });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Short = Type.String({ minLength: 1, maxLength: 100 });
const Uri = Type.String({ format: 'uri', maxLength: 2048 });
/** E.164: a plus, then up to 15 digits, the first not 0 (ITU-T E.164 §6). */
export const E164_PATTERN = '^\\+[1-9][0-9]{1,14}$';

export const PartyTypeSchema = Type.Union(
  (['PERSON', 'ORGANIZATION', 'ORGANIZATION_UNIT', 'SERVICE', 'GROUP'] satisfies PartyType[]).map((t) =>
    Type.Literal(t),
  ),
);

/** The largest member list one request may set (a larger group is built with several additions). */
export const MAX_MEMBERS_PER_REQUEST = 1000;
export const MemberList = Type.Array(Id, { maxItems: MAX_MEMBERS_PER_REQUEST });

const common = { origin: Short };

const PERSON = {
  displayName: Name,
  givenName: Name,
  middleName: Name,
  familyName: Name,
  birthDate: Type.String({ format: 'date' }),
  organizationUnitId: Id,
  ownership: Type.Union([Type.Literal('SELF'), Type.Literal('ORGANIZATION'), Type.Literal('EXTERNAL')]),
  ...common,
};

const ORGANIZATION = {
  legalName: Name,
  displayName: Name,
  organizationType: Short,
  industry: Short,
  contactDetails: Type.Object(
    {
      email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
      phone: Type.Optional(Type.String({ pattern: E164_PATTERN })),
      website: Type.Optional(Uri),
    },
    { additionalProperties: false },
  ),
  policyUris: Type.Object(
    { privacy: Type.Optional(Uri), terms: Type.Optional(Uri), cookies: Type.Optional(Uri) },
    { additionalProperties: false },
  ),
  ...common,
};

const ORGANIZATION_UNIT = {
  name: Name,
  parentOuId: Id,
  branding: Type.Object(
    {
      logoUri: Type.Optional(Uri),
      primaryColor: Type.Optional(Type.String({ pattern: '^#[0-9A-Fa-f]{6}$' })),
      displayName: Type.Optional(Name),
    },
    { additionalProperties: false },
  ),
  termsUri: Uri,
  ...common,
};

const SERVICE = {
  displayName: Name,
  serviceType: Short,
  endpointUri: Uri,
  oauthClientId: Type.String({ minLength: 1, maxLength: 255 }),
  ...common,
};

const GROUP = { name: Name, members: MemberList, ...common };

const FIELDS: Record<PartyType, { properties: TProperties; required: string[] }> = {
  PERSON: { properties: PERSON, required: ['displayName'] },
  ORGANIZATION: { properties: ORGANIZATION, required: ['legalName'] },
  ORGANIZATION_UNIT: { properties: ORGANIZATION_UNIT, required: ['name'] },
  SERVICE: { properties: SERVICE, required: ['displayName'] },
  GROUP: { properties: GROUP, required: ['name'] },
};

/** POST body: the required fields of the type, the others optional. */
export function createBody(type: PartyType): TObject {
  const { properties, required } = FIELDS[type];
  const shaped: Record<string, TSchema> = {};
  for (const [name, schema] of Object.entries(properties))
    shaped[name] = required.includes(name) ? schema : Type.Optional(schema);
  return Type.Object(shaped, { additionalProperties: false });
}

/** PUT body: every field optional and nullable (null or omitted keeps the stored value, 001 §4.4). */
export function updateBody(type: PartyType): TObject {
  const shaped: Record<string, TSchema> = {};
  for (const [name, schema] of Object.entries(FIELDS[type].properties))
    shaped[name] = Type.Optional(Type.Union([schema, Type.Null()]));
  return Type.Object(shaped, { additionalProperties: false });
}

export const IdParams = Type.Object({ id: Id }, { additionalProperties: false });

export const IncludeQuery = Type.Object(
  { include: Type.Optional(Type.String({ maxLength: 200, pattern: '^[A-Za-z, ]*$' })) },
  { additionalProperties: false },
);

/** limit/offset or page/size (domain/pagination.ts clamps the size), and `total=true` to count. */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  total: Type.Optional(Type.Boolean()),
};

export const PageOnlyQuery = Type.Object(PageQuery, { additionalProperties: false });

/** Filters of the typed lists: every type takes origin; persons the name filters and q (001 §4.4). */
export function listQuery(type: PartyType): TObject {
  const filters: Record<string, TSchema> = { origin: Type.Optional(Short) };
  if (type === 'PERSON') {
    filters.name = Type.Optional(Name);
    filters.displayName = Type.Optional(Name);
    filters.organizationUnitId = Type.Optional(Id);
    filters.q = Type.Optional(Type.String({ minLength: 1, maxLength: 200 }));
  } else {
    filters.displayName = Type.Optional(Name);
  }
  if (type === 'ORGANIZATION_UNIT') filters.parentOuId = Type.Optional(Id);
  return Type.Object({ ...PageQuery, ...filters }, { additionalProperties: false });
}

/** GET /parties: the polymorphic list's filters (001 §4.4). */
export const PartiesQuery = Type.Object(
  {
    ...PageQuery,
    partyType: Type.Optional(PartyTypeSchema),
    partySubtype: Type.Optional(Short),
    organizationUnitId: Type.Optional(Id),
    origin: Type.Optional(Short),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** An identifier-like token: an authentication method, identifier type, capability. */
const Token = Type.String({ pattern: '^[A-Za-z0-9_:.\\-]{1,64}$' });
const Tokens = Type.Array(Token, { maxItems: 20 });
const Instant = Type.String({ format: 'date-time', maxLength: 40 });
const nullable = (schema: TSchema) => Type.Optional(Type.Union([schema, Type.Null()]));

export const RegistrationBody = Type.Object(
  {
    scheme: Type.String({ pattern: '^[A-Z][A-Z0-9_]{1,31}$' }),
    value: Type.String({ minLength: 1, maxLength: 100 }),
    issuingAuthority: Type.Optional(Name),
  },
  { additionalProperties: false },
);

export const LoginConfigBody = Type.Object(
  {
    authenticationMethods: nullable(Tokens),
    identifierTypes: nullable(Tokens),
    identityProviders: nullable(Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems: 50 })),
    selfRegistrationAllowed: nullable(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const MembersBody = Type.Object({ members: MemberList }, { additionalProperties: false });
export const AddMemberBody = Type.Object({ memberId: Id }, { additionalProperties: false });
export const MemberParams = Type.Object({ id: Id, memberId: Id }, { additionalProperties: false });

const RelationshipFields = {
  fromPartyId: Id,
  toPartyId: Id,
  relationshipType: Type.String({ pattern: '^[a-z][a-z0-9_]{1,63}$' }),
  validFrom: Instant,
  validTo: Instant,
};
export const RelationshipBody = Type.Object(
  {
    fromPartyId: RelationshipFields.fromPartyId,
    toPartyId: RelationshipFields.toPartyId,
    relationshipType: RelationshipFields.relationshipType,
    validFrom: Type.Optional(Instant),
    validTo: Type.Optional(Instant),
  },
  { additionalProperties: false },
);
export const RelationshipUpdateBody = Type.Object(
  Object.fromEntries(Object.entries(RelationshipFields).map(([k, v]) => [k, nullable(v)])),
  { additionalProperties: false },
);
export const RelationshipsQuery = Type.Object(
  { ...PageQuery, partyId: Type.Optional(Id), relationshipType: Type.Optional(RelationshipFields.relationshipType) },
  { additionalProperties: false },
);
export const RelationshipTypeBody = Type.Object(
  {
    code: RelationshipFields.relationshipType,
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const ElectronicAddressBody = Type.Object(
  {
    addressType: Type.Union([Type.Literal('EMAIL'), Type.Literal('PHONE'), Type.Literal('URI')]),
    value: Type.String({ minLength: 1, maxLength: 2048 }),
    primary: Type.Optional(Type.Boolean()),
    verified: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const PhysicalAddressBody = Type.Object(
  {
    addressType: Type.Union(['HOME', 'WORK', 'POSTAL', 'REGISTERED', 'OTHER'].map((t) => Type.Literal(t))),
    streetLines: Type.Array(Name, { minItems: 1, maxItems: 4 }),
    locality: Type.Optional(Short),
    region: Type.Optional(Short),
    postalCode: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
    countryCode: Type.String({ pattern: '^[A-Z]{2}$' }),
    primary: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const AddressParams = Type.Object({ id: Id, addressId: Id }, { additionalProperties: false });

export const BindingParams = Type.Object({ identityId: Id, applicationId: Id }, { additionalProperties: false });
export const BindingBody = Type.Object(
  {
    capabilities: Tokens,
    authenticationMethods: Tokens,
    applicationRole: Type.Optional(Short),
    validFrom: Type.Optional(Instant),
    validTo: Type.Optional(Instant),
  },
  { additionalProperties: false },
);
