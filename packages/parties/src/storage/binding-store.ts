import type { Sql } from '@tessera/platform';

export interface BindingRow {
  identityId: string;
  applicationId: string;
  capabilities: string[];
  authenticationMethods: string[];
  applicationRole: string | null;
  validFrom: string | null;
  validTo: string | null;
}

const bindingJson = (b: string) => `jsonb_build_object(
  'identityId', ${b}.identity_id, 'applicationId', ${b}.application_id, 'capabilities', ${b}.capabilities,
  'authenticationMethods', ${b}.authentication_methods, 'applicationRole', ${b}.application_role,
  'validFrom', party_iso(${b}.valid_from), 'validTo', party_iso(${b}.valid_to),
  'createdAt', party_iso(${b}.created_at), 'updatedAt', party_iso(${b}.updated_at))`;

/** SQL of identity-to-application bindings (001 §2.5). Runs in the caller's tenant unit of work. */
export const bindingStore = {
  async get(sql: Sql, identityId: string, applicationId: string): Promise<unknown> {
    const result = await sql.query<{ view: unknown }>(
      `SELECT ${bindingJson('b')} AS view FROM party_identity_applications b
        WHERE b.identity_id = $1 AND b.application_id = $2`,
      [identityId, applicationId],
    );
    return result.rows[0]?.view ?? null;
  },

  /** Sets the binding whole; answers its view and whether it was created. */
  async put(sql: Sql, row: BindingRow, now: Date): Promise<{ view: unknown; created: boolean }> {
    const result = await sql.query<{ view: unknown; created: boolean }>(
      `INSERT INTO party_identity_applications AS b (identity_id, application_id, capabilities, authentication_methods,
         application_role, valid_from, valid_to, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       ON CONFLICT (tenant_id, identity_id, application_id) DO UPDATE SET capabilities = EXCLUDED.capabilities,
         authentication_methods = EXCLUDED.authentication_methods, application_role = EXCLUDED.application_role,
         valid_from = EXCLUDED.valid_from, valid_to = EXCLUDED.valid_to, updated_at = EXCLUDED.updated_at
       RETURNING ${bindingJson('b')} AS view, (xmax = 0) AS created`,
      [
        row.identityId,
        row.applicationId,
        JSON.stringify(row.capabilities),
        JSON.stringify(row.authenticationMethods),
        row.applicationRole,
        row.validFrom,
        row.validTo,
        now,
      ],
    );
    return result.rows[0]!;
  },

  async remove(sql: Sql, identityId: string, applicationId: string): Promise<boolean> {
    const result = await sql.query(
      `DELETE FROM party_identity_applications WHERE identity_id = $1 AND application_id = $2`,
      [identityId, applicationId],
    );
    return result.rowCount === 1;
  },
};
