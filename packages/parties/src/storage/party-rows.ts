import type { PartyType } from '../domain/party-kinds.js';
import type { PartyRecord } from '../domain/party-record.js';

/** A row of `parties` as the driver returns it (timestamps as Date on PostgreSQL, as Date or string on PGlite). */
export interface PartyRow {
  id: string;
  party_type: PartyType;
  party_subtype: string | null;
  display_name: string;
  origin: string | null;
  organization_unit_id: string | null;
  attributes: Record<string, unknown>;
  created_at: Date | string;
  updated_at: Date | string;
}

export const iso = (v: Date | string) => (v instanceof Date ? v : new Date(v)).toISOString();

export const PARTY_COLUMNS = `p.id, p.party_type, p.party_subtype, p.display_name, p.origin, p.organization_unit_id,
  p.attributes, p.created_at, p.updated_at`;

export function toRecord(row: PartyRow): PartyRecord {
  return {
    id: row.id,
    type: row.party_type,
    subtype: row.party_subtype,
    displayName: row.display_name,
    origin: row.origin,
    organizationUnitId: row.organization_unit_id,
    attributes: row.attributes,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
