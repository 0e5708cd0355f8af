import type { Sql } from '@tessera/platform';
import { toLogin, type LoginTransaction, type Row } from './grant-rows.js';

/** Logins in progress (oauth_login_transactions): saved at /authorize, taken once at the upstream callback. */
export const loginTransactionStore = {
  /** The upstream verifier goes in sealed only (`sealedUpstreamCodeVerifier`); the plaintext column stays empty. */
  async saveLoginTransaction(
    sql: Sql,
    t: Omit<LoginTransaction, 'upstreamCodeVerifier'> & { upstreamStateHash: string | null },
  ): Promise<void> {
    await sql.query(
      `INSERT INTO oauth_login_transactions (id, client_id, redirect_uri, scope, state, nonce, code_challenge, code_challenge_method,
         dpop_jkt, upstream_state_hash, upstream_nonce, sealed_upstream_code_verifier, created_at, expires_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)`,
      [
        t.id,
        t.clientId,
        t.redirectUri,
        t.scope,
        t.state,
        t.nonce,
        t.codeChallenge,
        t.codeChallengeMethod,
        t.dpopJkt,
        t.upstreamStateHash,
        t.upstreamNonce,
        t.sealedUpstreamCodeVerifier,
        t.createdAt,
        t.expiresAt,
      ],
    );
  },

  /** Single use: the transaction is deleted as it is taken, so a replayed upstream state finds nothing. */
  async takeLoginTransactionByUpstreamState(sql: Sql, upstreamStateHash: string): Promise<LoginTransaction | null> {
    const r = await sql.query<Row>('DELETE FROM oauth_login_transactions WHERE upstream_state_hash = $1 RETURNING *', [
      upstreamStateHash,
    ]);
    return r.rows[0] ? toLogin(r.rows[0]) : null;
  },

  async takeLoginTransaction(sql: Sql, id: string): Promise<LoginTransaction | null> {
    const r = await sql.query<Row>('DELETE FROM oauth_login_transactions WHERE id = $1 RETURNING *', [id]);
    return r.rows[0] ? toLogin(r.rows[0]) : null;
  },
};
