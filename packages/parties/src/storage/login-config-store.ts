import type { Sql } from '@tessera/platform';
import type { LoginConfig } from '../domain/login-config.js';

/** SQL of a service's login configuration (001 §2.5). Runs in the caller's tenant unit of work. */
export const loginConfigStore = {
  /** `found` false when no live service has the id; `config` null when the service has none stored. */
  async get(sql: Sql, serviceId: string): Promise<{ found: boolean; config: LoginConfig | null }> {
    const result = await sql.query<{ config: LoginConfig | null }>(
      `SELECT c.config FROM parties p
         LEFT JOIN party_service_login_configs c ON c.tenant_id = p.tenant_id AND c.service_id = p.id
        WHERE p.id = $1 AND p.party_type = 'SERVICE' AND p.deleted_at IS NULL`,
      [serviceId],
    );
    const row = result.rows[0];
    return row ? { found: true, config: row.config } : { found: false, config: null };
  },

  async put(sql: Sql, serviceId: string, config: LoginConfig, now: Date): Promise<void> {
    await sql.query(
      `INSERT INTO party_service_login_configs (service_id, config, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, service_id) DO UPDATE SET config = EXCLUDED.config, updated_at = EXCLUDED.updated_at`,
      [serviceId, JSON.stringify(config), now],
    );
  },
};
