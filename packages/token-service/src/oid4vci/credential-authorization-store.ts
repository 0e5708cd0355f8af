import { randomUUID } from 'node:crypto';
import type { Sql } from '@tessera/platform';
import type { CredentialAuthorization } from './credential-authorization.js';

/**
 * SQL of the OpenID4VCI authorization code flow (migrations/0006_credential_authorizations.sql), and its reads and
 * writes of the codes and grants of 0001. Every function runs inside the caller's tenant unit of work.
 */
type Row = Record<string, unknown>;
const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));

/** A presented code with its grant and what it authorized, locked for the exchange (FOR UPDATE). */
export interface CredentialCodeState {
  grantId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  codeChallengeMethod: string;
  expiresAt: Date;
  consumedAt: Date | null;
  subject: string | null;
  dpopJkt: string | null;
  revokedAt: Date | null;
  correlationId: string;
  configurationIds: string[];
  accessTokenJti: string | null;
}

export const credentialAuthorizationStore = {
  /** While the person logs in upstream: what the request authorized, keyed by its login transaction. */
  async saveForLogin(
    sql: Sql,
    loginTransactionId: string,
    credential: CredentialAuthorization,
    now: Date,
    expiresAt: Date,
  ): Promise<void> {
    await sql.query(
      `INSERT INTO oauth_credential_authorizations (id, login_transaction_id, issuer_state_hash, correlation_id,
         credential_configuration_ids, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        randomUUID(),
        loginTransactionId,
        credential.issuerStateHash,
        credential.correlationId,
        credential.configurationIds,
        now,
        expiresAt,
      ],
    );
  },

  /** The authorization of a login transaction, detached from it (the transaction itself is taken once). */
  async takeForLogin(sql: Sql, loginTransactionId: string): Promise<CredentialAuthorization | null> {
    const r = await sql.query<Row>(
      `DELETE FROM oauth_credential_authorizations WHERE login_transaction_id = $1 AND grant_id IS NULL
       RETURNING issuer_state_hash, correlation_id, credential_configuration_ids`,
      [loginTransactionId],
    );
    const row = r.rows[0];
    return row
      ? {
          issuerStateHash: row.issuer_state_hash as string,
          correlationId: row.correlation_id as string,
          configurationIds: row.credential_configuration_ids as string[],
        }
      : null;
  },

  /** The authorization as it is bound to a grant (the code's), once the person has logged in. */
  async saveForGrant(
    sql: Sql,
    grantId: string,
    credential: CredentialAuthorization,
    now: Date,
    expiresAt: Date,
  ): Promise<void> {
    await sql.query(
      `INSERT INTO oauth_credential_authorizations (id, grant_id, issuer_state_hash, correlation_id,
         credential_configuration_ids, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        randomUUID(),
        grantId,
        credential.issuerStateHash,
        credential.correlationId,
        credential.configurationIds,
        now,
        expiresAt,
      ],
    );
  },

  /** The code, its grant and its authorization, locked until the unit of work ends (one exchange at a time). */
  async lockCode(sql: Sql, codeHash: string): Promise<CredentialCodeState | null> {
    const r = await sql.query<Row>(
      `SELECT c.grant_id, c.client_id, c.redirect_uri, c.code_challenge, c.code_challenge_method, c.expires_at,
              c.consumed_at, g.subject, g.dpop_jkt, g.revoked_at, a.correlation_id, a.credential_configuration_ids,
              a.access_token_jti
         FROM oauth_authorization_codes c
         JOIN oauth_grants g ON g.id = c.grant_id
         JOIN oauth_credential_authorizations a ON a.grant_id = c.grant_id
        WHERE c.code_hash = $1
        FOR UPDATE OF c`,
      [codeHash],
    );
    const row = r.rows[0];
    if (!row) return null;
    return {
      grantId: row.grant_id as string,
      clientId: row.client_id as string,
      redirectUri: row.redirect_uri as string,
      codeChallenge: row.code_challenge as string,
      codeChallengeMethod: row.code_challenge_method as string,
      expiresAt: date(row.expires_at)!,
      consumedAt: date(row.consumed_at),
      subject: (row.subject as string | null) ?? null,
      dpopJkt: (row.dpop_jkt as string | null) ?? null,
      revokedAt: date(row.revoked_at),
      correlationId: row.correlation_id as string,
      configurationIds: row.credential_configuration_ids as string[],
      accessTokenJti: (row.access_token_jti as string | null) ?? null,
    };
  },

  /**
   * The exchange: the code consumed, the grant bound to the proof's key and kept as long as its token lives, and the
   * token's jti recorded (so that a second presentation of the code can revoke it).
   */
  async consume(
    sql: Sql,
    input: { codeHash: string; grantId: string; now: Date; dpopJkt: string | null; grantExpiresAt: Date; jti: string },
  ): Promise<void> {
    await sql.query('UPDATE oauth_authorization_codes SET consumed_at = $2 WHERE code_hash = $1', [
      input.codeHash,
      input.now,
    ]);
    await sql.query('UPDATE oauth_grants SET expires_at = $2, dpop_jkt = COALESCE(dpop_jkt, $3) WHERE id = $1', [
      input.grantId,
      input.grantExpiresAt,
      input.dpopJkt,
    ]);
    await sql.query(
      'UPDATE oauth_credential_authorizations SET access_token_jti = $2, expires_at = $3 WHERE grant_id = $1',
      [input.grantId, input.jti, input.grantExpiresAt],
    );
  },

  /**
   * A code presented again (RFC 6749 §4.1.2: the tokens issued from it should be revoked): the grant is revoked and
   * the access token of the first exchange recorded as revoked until it expires.
   */
  async revokeOnReuse(sql: Sql, state: CredentialCodeState, now: Date, tokenExpiresAt: Date): Promise<void> {
    await sql.query(
      `UPDATE oauth_grants SET revoked_at = COALESCE(revoked_at, $2), revoked_reason = COALESCE(revoked_reason, 'code_reuse')
        WHERE id = $1`,
      [state.grantId, now],
    );
    if (state.accessTokenJti)
      await sql.query(
        'INSERT INTO oauth_revoked_access_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [state.accessTokenJti, tokenExpiresAt],
      );
  },

  /** Housekeeping: authorizations whose login or token has ended. */
  async purgeExpired(sql: Sql, before: Date): Promise<number> {
    return (await sql.query('DELETE FROM oauth_credential_authorizations WHERE expires_at < $1', [before])).rowCount;
  },
};
