/**
 * The typed party resources of 001 §2.5 and §4.4, and where each one's fields live. The store keeps every type in
 * one table (storage/migrations/0001_parties.sql): a name shown in lists, the subtype, the origin and the unit
 * reference are columns (lists filter and sort on them); the remaining fields of the type are attributes.
 */
export const PARTY_TYPES = ['PERSON', 'ORGANIZATION', 'ORGANIZATION_UNIT', 'SERVICE', 'GROUP'] as const;
export type PartyType = (typeof PARTY_TYPES)[number];

/** Associations a read may opt into with `include` (001 §4.4: by default nothing extra is loaded). */
export const INCLUDES = [
  'specializations',
  'addresses',
  'registrations',
  'members',
  'relationships',
  'loginConfig',
] as const;
export type Include = (typeof INCLUDES)[number];

export interface PartyKind {
  type: PartyType;
  /** Path segment and the `<resource>` of the policy actions `party.<resource>.<action>` (001 §5). */
  resource: 'persons' | 'organizations' | 'organizationunits' | 'services' | 'groups';
  /** The field stored as the display name (required at creation unless `displayFallback` gives one). */
  displayField: 'displayName' | 'name';
  /** A field that stands in for the display name when it is absent (an organization's legal name). */
  displayFallback?: 'legalName';
  /** The field stored as the subtype (the /parties partySubtype filter). */
  subtypeField?: 'organizationType' | 'serviceType';
  /** The field stored as the unit reference: a person's home unit, a unit's parent. */
  unitField?: 'organizationUnitId' | 'parentOuId';
  /** The remaining fields of the type, stored as attributes. */
  attributeFields: readonly string[];
  /** What `include` may name on this type's get. */
  includes: readonly Include[];
}

const COMMON_INCLUDES: readonly Include[] = ['specializations', 'addresses', 'relationships'];

export const PERSON: PartyKind = {
  type: 'PERSON',
  resource: 'persons',
  displayField: 'displayName',
  unitField: 'organizationUnitId',
  attributeFields: ['givenName', 'middleName', 'familyName', 'birthDate', 'ownership'],
  includes: COMMON_INCLUDES,
};

export const ORGANIZATION: PartyKind = {
  type: 'ORGANIZATION',
  resource: 'organizations',
  displayField: 'displayName',
  displayFallback: 'legalName',
  subtypeField: 'organizationType',
  attributeFields: ['legalName', 'industry', 'contactDetails', 'policyUris'],
  includes: [...COMMON_INCLUDES, 'registrations'],
};

export const ORGANIZATION_UNIT: PartyKind = {
  type: 'ORGANIZATION_UNIT',
  resource: 'organizationunits',
  displayField: 'name',
  unitField: 'parentOuId',
  attributeFields: ['branding', 'termsUri'],
  includes: COMMON_INCLUDES,
};

export const SERVICE: PartyKind = {
  type: 'SERVICE',
  resource: 'services',
  displayField: 'displayName',
  subtypeField: 'serviceType',
  attributeFields: ['endpointUri', 'oauthClientId'],
  includes: [...COMMON_INCLUDES, 'loginConfig'],
};

export const GROUP: PartyKind = {
  type: 'GROUP',
  resource: 'groups',
  displayField: 'name',
  attributeFields: [],
  // 001 §2.5: a group carries no specializations or attributes.
  includes: ['addresses', 'relationships', 'members'],
};

export const PARTY_KINDS: readonly PartyKind[] = [PERSON, ORGANIZATION, ORGANIZATION_UNIT, SERVICE, GROUP];

export const kindOf = (type: PartyType): PartyKind => PARTY_KINDS.find((k) => k.type === type)!;
