import type { Sql } from '@tessera/platform';

/**
 * SQL of the OpenID4VCI grants (migrations/0004_credential_grants.sql). Every function runs inside the caller's
 * tenant unit of work (`db.withTenant`); row-level security confines it to the tenant.
 */
export type CredentialGrantKind = 'pre-authorized_code' | 'issuer_state';

export interface CredentialGrant {
  codeHash: string;
  kind: CredentialGrantKind;
  correlationId: string;
  credentialConfigurationIds: string[];
  txCodeMac: string | null;
  txCodeFailures: number;
  lockedAt: Date | null;
  createdAt: Date;
  expiresAt: Date;
  redeemedAt: Date | null;
  replayedAt: Date | null;
  accessTokenJti: string | null;
}

type Row = Record<string, unknown>;
const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));

const toGrant = (r: Row): CredentialGrant => ({
  codeHash: r.code_hash as string,
  kind: r.kind as CredentialGrantKind,
  correlationId: r.correlation_id as string,
  credentialConfigurationIds: r.credential_configuration_ids as string[],
  txCodeMac: (r.tx_code_mac as string | null) ?? null,
  txCodeFailures: Number(r.tx_code_failures),
  lockedAt: date(r.locked_at),
  createdAt: date(r.created_at)!,
  expiresAt: date(r.expires_at)!,
  redeemedAt: date(r.redeemed_at),
  replayedAt: date(r.replayed_at),
  accessTokenJti: (r.access_token_jti as string | null) ?? null,
});

export const credentialGrantStore = {
  /** false when a grant with this code already exists in the tenant (a given code that collides). */
  async insert(
    sql: Sql,
    g: Pick<
      CredentialGrant,
      'codeHash' | 'kind' | 'correlationId' | 'credentialConfigurationIds' | 'txCodeMac' | 'createdAt' | 'expiresAt'
    >,
  ): Promise<boolean> {
    const r = await sql.query(
      `INSERT INTO oauth_credential_grants (code_hash, kind, correlation_id, credential_configuration_ids, tx_code_mac,
         created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      [g.codeHash, g.kind, g.correlationId, g.credentialConfigurationIds, g.txCodeMac, g.createdAt, g.expiresAt],
    );
    return r.rowCount === 1;
  },

  /**
   * The grant, locked for the rest of the unit of work (FOR UPDATE): concurrent redemptions of one code are
   * serialised, so that exactly one of them sees it unredeemed (and tx_code failures are counted without loss).
   */
  async lock(sql: Sql, kind: CredentialGrantKind, codeHash: string): Promise<CredentialGrant | null> {
    const r = await sql.query<Row>(
      'SELECT * FROM oauth_credential_grants WHERE code_hash = $1 AND kind = $2 FOR UPDATE',
      [codeHash, kind],
    );
    return r.rows[0] ? toGrant(r.rows[0]) : null;
  },

  async find(sql: Sql, kind: CredentialGrantKind, codeHash: string): Promise<CredentialGrant | null> {
    const r = await sql.query<Row>('SELECT * FROM oauth_credential_grants WHERE code_hash = $1 AND kind = $2', [
      codeHash,
      kind,
    ]);
    return r.rows[0] ? toGrant(r.rows[0]) : null;
  },

  /** A wrong tx_code: one more failure, and the lock when the limit is reached. Answers the failures so far. */
  async recordTxCodeFailure(sql: Sql, codeHash: string, now: Date, limit: number): Promise<number> {
    const r = await sql.query<{ tx_code_failures: number }>(
      `UPDATE oauth_credential_grants SET tx_code_failures = tx_code_failures + 1,
         locked_at = CASE WHEN tx_code_failures + 1 >= $3 THEN COALESCE(locked_at, $2) ELSE locked_at END
       WHERE code_hash = $1 RETURNING tx_code_failures`,
      [codeHash, now, limit],
    );
    return Number(r.rows[0]?.tx_code_failures ?? 0);
  },

  async markRedeemed(sql: Sql, codeHash: string, now: Date, accessTokenJti: string | null): Promise<void> {
    await sql.query('UPDATE oauth_credential_grants SET redeemed_at = $2, access_token_jti = $3 WHERE code_hash = $1', [
      codeHash,
      now,
      accessTokenJti,
    ]);
  },

  /**
   * An issuer_state used by the authorization code it led to (single use, §5.1.3): false when it was used already,
   * has expired or does not exist.
   */
  async useIssuerState(sql: Sql, codeHash: string, now: Date): Promise<boolean> {
    const r = await sql.query(
      `UPDATE oauth_credential_grants SET redeemed_at = $2
        WHERE code_hash = $1 AND kind = 'issuer_state' AND redeemed_at IS NULL AND expires_at > $2`,
      [codeHash, now],
    );
    return r.rowCount === 1;
  },

  async markReplayed(sql: Sql, codeHash: string, now: Date): Promise<void> {
    await sql.query('UPDATE oauth_credential_grants SET replayed_at = COALESCE(replayed_at, $2) WHERE code_hash = $1', [
      codeHash,
      now,
    ]);
  },

  /** Housekeeping: grants expired for a day (kept that long so that a late replay is still recognised as one). */
  async purgeExpired(sql: Sql, before: Date): Promise<number> {
    return (await sql.query('DELETE FROM oauth_credential_grants WHERE expires_at < $1', [before])).rowCount;
  },
};
