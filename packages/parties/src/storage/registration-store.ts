import type { Sql } from '@tessera/platform';
import { registrationJson } from './views.js';

/** SQL of an organization's registrations (001 §2.5). Runs in the caller's tenant unit of work. */
export const registrationStore = {
  async add(
    sql: Sql,
    row: { id: string; partyId: string; scheme: string; value: string; issuingAuthority: string | null },
    now: Date,
  ): Promise<unknown> {
    const result = await sql.query<{ view: unknown }>(
      `INSERT INTO party_registrations AS r (id, party_id, scheme, value, issuing_authority, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${registrationJson('r')} AS view`,
      [row.id, row.partyId, row.scheme, row.value, row.issuingAuthority, now],
    );
    return result.rows[0]!.view;
  },

  /** The registrations of a live organization, or null when there is none with this id (one statement). */
  async list(sql: Sql, partyId: string): Promise<unknown[] | null> {
    const result = await sql.query<{ views: unknown[] | null }>(
      `SELECT (SELECT coalesce(jsonb_agg(${registrationJson('r')} ORDER BY r.created_at, r.id), '[]')
                 FROM party_registrations r WHERE r.tenant_id = p.tenant_id AND r.party_id = p.id) AS views
         FROM parties p WHERE p.id = $1 AND p.party_type = 'ORGANIZATION' AND p.deleted_at IS NULL`,
      [partyId],
    );
    return result.rows[0]?.views ?? null;
  },
};
