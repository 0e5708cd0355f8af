import { stageAuditEventsFrom, type PendingAuditEvent, type Sql } from '@tessera/platform';
import { toCode, toGrant, type AuthorizationCode, type Grant, type Row } from './grant-rows.js';

/** One authorization code presented at the token endpoint (RFC 6749 §4.1.3), as redeemCode checks it. */
export interface CodeRedemption {
  codeHash: string;
  clientId: string;
  redirectUri: string;
  /** The S256 challenge of the presented verifier (RFC 7636 §4.6). */
  codeChallenge: string;
  now: Date;
  /** The thumbprint of the request's DPoP proof key, if any. */
  dpopJkt: string | null;
  /** The grant's lifetime from now on, without and with a refresh token. */
  grantExpiresAt: Date;
  grantExpiresAtWithRefresh: Date;
  refresh: { tokenHash: string; expiresAt: Date; requiredScope: string } | null;
  /** The execution's audit event, staged by the statement when it consumes the code (issue 13 §7). */
  auditEvent?: PendingAuditEvent | null;
}

/** The code and grant as they were before the statement (null: no such code), and what the statement did. */
export interface CodeRedeemed {
  found: { code: AuthorizationCode; grant: Grant } | null;
  consumed: boolean;
  refreshStored: boolean;
}

/** Grants and their authorization codes (RFC 6749 §4.1): made together at the end of a login, redeemed once. */
export const authorizationCodeStore = {
  /**
   * Creates the grant and its authorization code together. The claims go in sealed only (`sealedClaims`, issue 13
   * §4); the plaintext column stays empty.
   */
  async saveGrantWithCode(
    sql: Sql,
    grant: Grant,
    sealedClaims: string,
    code: AuthorizationCode & { createdAt: Date },
  ): Promise<void> {
    await sql.query(
      `WITH g AS (
         INSERT INTO oauth_grants (id, client_id, subject, scope, acr, amr, auth_time, claims, sealed_claims, dpop_jkt, created_at, expires_at)
         VALUES ($1,$2,$3,$4,$5,$6,$7,'{}',$8,$9,$10,$11) RETURNING id)
       INSERT INTO oauth_authorization_codes (code_hash, grant_id, client_id, redirect_uri, nonce, code_challenge, code_challenge_method, created_at, expires_at)
       SELECT $12, g.id, $2, $13, $14, $15, $16, $10, $17 FROM g`,
      [
        grant.id,
        grant.clientId,
        grant.subject,
        grant.scope,
        grant.acr,
        grant.amr,
        grant.authTime,
        sealedClaims,
        grant.dpopJkt,
        grant.createdAt,
        grant.expiresAt,
        code.codeHash,
        code.redirectUri,
        code.nonce,
        code.codeChallenge,
        code.codeChallengeMethod,
        code.expiresAt,
      ],
    );
  },

  /**
   * Redeems an authorization code in one statement (RFC 6749 §4.1.3): the code is consumed only when every check
   * holds (unconsumed, this client, this redirect URI, unexpired, the S256 challenge of the presented verifier, and
   * a proof by the grant's DPoP key when it is bound, RFC 9449 §10), so that a refused request leaves it unused.
   * Consuming it also activates the grant's lifetime, binds the grant to the proof's key when it has none yet
   * (RFC 9449 §5) and, when the grant's scope holds `refresh.requiredScope`, stores the first refresh token.
   * Being one statement it is atomic without a transaction: of concurrent redemptions exactly one consumes.
   *
   * Answers the code and grant as they were before the statement (null when no such code), so that the caller can
   * tell why a refused redemption was refused, and whether this statement consumed the code and stored a refresh
   * token.
   */
  async redeemCode(sql: Sql, input: CodeRedemption): Promise<CodeRedeemed> {
    return (await authorizationCodeStore.redeemCodes(sql, [input]))[0]!;
  },

  /**
   * redeemCode for several codes in one statement (the token endpoint batches concurrent exchanges of a tenant):
   * each input row is checked and consumed as it would be alone. The codes must be distinct: a code presented twice
   * belongs in a later statement, which then finds it consumed. Answers in the order of `inputs`.
   */
  async redeemCodes(sql: Sql, inputs: readonly CodeRedemption[]): Promise<CodeRedeemed[]> {
    const rows = inputs.map((input, n) => ({
      n,
      code_hash: input.codeHash,
      client_id: input.clientId,
      redirect_uri: input.redirectUri,
      code_challenge: input.codeChallenge,
      at: input.now,
      dpop_jkt: input.dpopJkt,
      grant_expires_at: input.grantExpiresAt,
      grant_expires_at_with_refresh: input.grantExpiresAtWithRefresh,
      refresh_hash: input.refresh?.tokenHash ?? null,
      refresh_expires_at: input.refresh?.expiresAt ?? null,
      required_scope: input.refresh?.requiredScope ?? null,
      audit_event: input.auditEvent ?? null,
    }));
    // Every common table expression sees the rows as they were before the statement (PostgreSQL §7.8.4), so
    // `found` is the state before the redemption, whatever the other parts change. The lateral join looks each
    // input up by its key, an index probe per row (LIMIT 1 keeps the planner from flattening it into a join): the
    // planner cannot count a JSON parameter's rows, and joining them as a set had it scan every code of the tenant.
    const r = await sql.query<Row & { n: number; consumed: boolean; refresh_stored: boolean }>(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS i(n int, code_hash text, client_id text, redirect_uri text,
           code_challenge text, at timestamptz, dpop_jkt text, grant_expires_at timestamptz,
           grant_expires_at_with_refresh timestamptz, refresh_hash text, refresh_expires_at timestamptz, required_scope text,
           audit_event jsonb)),
       found AS (
         SELECT i.n, x.*, (i.refresh_hash IS NOT NULL AND i.required_scope = ANY (string_to_array(x.scope, ' '))) AS offline
         FROM input i CROSS JOIN LATERAL (
           SELECT c.code_hash, c.grant_id, c.client_id AS code_client_id, c.redirect_uri, c.nonce, c.code_challenge,
                  c.code_challenge_method, c.expires_at AS code_expires_at, c.consumed_at, g.*
           FROM oauth_authorization_codes c JOIN oauth_grants g ON g.id = c.grant_id WHERE c.code_hash = i.code_hash LIMIT 1) x),
       consumed AS (
         UPDATE oauth_authorization_codes code SET consumed_at = i.at
         FROM input i JOIN found f ON f.n = i.n
         WHERE code.code_hash = i.code_hash AND code.consumed_at IS NULL AND code.client_id = i.client_id
           AND code.redirect_uri = i.redirect_uri AND code.expires_at > i.at AND code.code_challenge_method = 'S256'
           AND code.code_challenge = i.code_challenge AND (f.dpop_jkt IS NULL OR f.dpop_jkt = i.dpop_jkt)
         RETURNING i.n, code.grant_id, code.client_id, f.scope, f.offline, i.at, i.dpop_jkt, i.grant_expires_at,
                   i.grant_expires_at_with_refresh, i.refresh_hash, i.refresh_expires_at),
       activated AS (
         UPDATE oauth_grants g
            SET expires_at = CASE WHEN c.offline THEN c.grant_expires_at_with_refresh ELSE c.grant_expires_at END,
                dpop_jkt = COALESCE(g.dpop_jkt, c.dpop_jkt)
         FROM consumed c WHERE g.id = c.grant_id RETURNING g.id),
       refresh AS (
         INSERT INTO oauth_refresh_tokens (token_hash, grant_id, client_id, scope, created_at, expires_at)
         SELECT refresh_hash, grant_id, client_id, scope, at, refresh_expires_at FROM consumed WHERE offline
         RETURNING token_hash),
       staged AS (${stageAuditEventsFrom('(SELECT i.audit_event FROM input i JOIN consumed c ON c.n = i.n)')})
       SELECT found.*, EXISTS (SELECT 1 FROM consumed c WHERE c.n = found.n) AS consumed,
              EXISTS (SELECT 1 FROM refresh r JOIN input i ON r.token_hash = i.refresh_hash WHERE i.n = found.n)
                AS refresh_stored
       FROM found`,
      [JSON.stringify(rows)],
      { prepareAs: 'token.redeem-codes' },
    );
    const byInput = new Map(r.rows.map((row) => [Number(row.n), row]));
    return inputs.map((_, n): CodeRedeemed => {
      const row = byInput.get(n);
      if (!row) return { found: null, consumed: false, refreshStored: false };
      return {
        found: {
          code: toCode({ ...row, client_id: row.code_client_id, expires_at: row.code_expires_at }),
          grant: toGrant(row),
        },
        consumed: row.consumed === true,
        refreshStored: row.refresh_stored === true,
      };
    });
  },
};
