import { kindOf, type PartyKind, type PartyType } from './party-kinds.js';
import { searchText } from './search-text.js';

/** A party as stored (storage/party-store.ts maps the rows). */
export interface PartyRecord {
  id: string;
  type: PartyType;
  subtype: string | null;
  displayName: string;
  origin: string | null;
  organizationUnitId: string | null;
  attributes: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** What the store writes for a party: the columns of 0001_parties.sql. */
export interface PartyColumns {
  type: PartyType;
  subtype: string | null;
  displayName: string;
  origin: string | null;
  organizationUnitId: string | null;
  attributes: Record<string, unknown>;
  searchText: string;
}

/** The fields of a typed resource as the API names them (001 §2.5), absent ones left out. */
export type PartyFields = Record<string, unknown>;

const present = (v: unknown) => v !== undefined && v !== null;

/** Splits a type's fields into the stored columns. */
export function toColumns(kind: PartyKind, fields: PartyFields): PartyColumns {
  const attributes: Record<string, unknown> = {};
  for (const name of kind.attributeFields) if (present(fields[name])) attributes[name] = fields[name];
  const str = (name: string | undefined) => (name !== undefined && present(fields[name]) ? String(fields[name]) : null);
  const displayName = str(kind.displayField) ?? str(kind.displayFallback) ?? '';
  return {
    type: kind.type,
    subtype: str(kind.subtypeField),
    displayName,
    origin: str('origin'),
    organizationUnitId: str(kind.unitField),
    attributes,
    searchText: searchText([
      displayName,
      attributes.legalName,
      attributes.givenName,
      attributes.middleName,
      attributes.familyName,
    ]),
  };
}

/** The fields of a stored party as its typed resource shows them. */
export function toFields(record: PartyRecord): PartyFields {
  const kind = kindOf(record.type);
  const fields: PartyFields = { [kind.displayField]: record.displayName };
  if (kind.subtypeField) fields[kind.subtypeField] = record.subtype;
  fields.origin = record.origin;
  if (kind.unitField) fields[kind.unitField] = record.organizationUnitId;
  for (const name of kind.attributeFields) fields[name] = record.attributes[name] ?? null;
  return fields;
}

/**
 * PUT (001 §4.4): a field that is null or omitted keeps the stored value; any other replaces it (an object field
 * such as contactDetails is replaced whole).
 */
export function mergeFields(stored: PartyFields, patch: PartyFields): PartyFields {
  const merged: PartyFields = { ...stored };
  for (const [name, value] of Object.entries(patch)) if (present(value)) merged[name] = value;
  return merged;
}

/** The base of every party view: what /parties shows by default. */
export function baseView(record: PartyRecord): Record<string, unknown> {
  return {
    id: record.id,
    partyType: record.type,
    partySubtype: record.subtype,
    displayName: record.displayName,
    origin: record.origin,
    organizationUnitId: record.organizationUnitId,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** The view of a typed resource: its id and type, its fields, its timestamps. */
export function typedView(record: PartyRecord): Record<string, unknown> {
  return {
    id: record.id,
    partyType: record.type,
    ...toFields(record),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}
