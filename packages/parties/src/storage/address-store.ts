import type { Sql } from '@tessera/platform';
import { electronicAddressJson, physicalAddressJson } from './views.js';

export interface ElectronicAddressRow {
  id: string;
  partyId: string;
  type: string;
  value: string;
  primary: boolean;
  verified: boolean;
}

export interface PhysicalAddressRow {
  id: string;
  partyId: string;
  type: string;
  streetLines: string[];
  locality: string | null;
  region: string | null;
  postalCode: string | null;
  countryCode: string;
  primary: boolean;
}

type Kind = 'electronic' | 'physical';
const TABLE: Record<Kind, string> = {
  electronic: 'party_electronic_addresses',
  physical: 'party_physical_addresses',
};
const JSON_OF: Record<Kind, (a: string) => string> = {
  electronic: electronicAddressJson,
  physical: physicalAddressJson,
};

/** SQL of a party's electronic and physical addresses (001 §2.5). Runs in the caller's tenant unit of work. */
export const addressStore = {
  /** One primary address per type and party: the previous primary of the type stops being primary. */
  async demotePrimary(sql: Sql, kind: Kind, partyId: string, type: string): Promise<void> {
    await sql.query(
      `UPDATE ${TABLE[kind]} SET is_primary = false WHERE party_id = $1 AND address_type = $2 AND is_primary`,
      [partyId, type],
    );
  },

  async addElectronic(sql: Sql, row: ElectronicAddressRow, now: Date): Promise<unknown> {
    const result = await sql.query<{ view: unknown }>(
      `INSERT INTO party_electronic_addresses AS e (id, party_id, address_type, value, is_primary, verified, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${electronicAddressJson('e')} AS view`,
      [row.id, row.partyId, row.type, row.value, row.primary, row.verified, now],
    );
    return result.rows[0]!.view;
  },

  async addPhysical(sql: Sql, row: PhysicalAddressRow, now: Date): Promise<unknown> {
    const result = await sql.query<{ view: unknown }>(
      `INSERT INTO party_physical_addresses AS a (id, party_id, address_type, street_lines, locality, region,
         postal_code, country_code, is_primary, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${physicalAddressJson('a')} AS view`,
      [
        row.id,
        row.partyId,
        row.type,
        JSON.stringify(row.streetLines),
        row.locality,
        row.region,
        row.postalCode,
        row.countryCode,
        row.primary,
        now,
      ],
    );
    return result.rows[0]!.view;
  },

  /** The addresses of a live party, or null when there is none with this id (one statement). */
  async list(sql: Sql, kind: Kind, partyId: string): Promise<unknown[] | null> {
    const result = await sql.query<{ views: unknown[] | null }>(
      `SELECT (SELECT coalesce(jsonb_agg(${JSON_OF[kind]('a')} ORDER BY a.created_at, a.id), '[]')
                 FROM ${TABLE[kind]} a WHERE a.tenant_id = p.tenant_id AND a.party_id = p.id) AS views
         FROM parties p WHERE p.id = $1 AND p.deleted_at IS NULL`,
      [partyId],
    );
    return result.rows[0]?.views ?? null;
  },

  async remove(sql: Sql, kind: Kind, partyId: string, addressId: string): Promise<boolean> {
    const result = await sql.query(`DELETE FROM ${TABLE[kind]} WHERE party_id = $1 AND id = $2`, [partyId, addressId]);
    return result.rowCount === 1;
  },
};
