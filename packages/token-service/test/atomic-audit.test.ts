import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, loseAuditChaining } from '@tessera/platform/testing';
import { hashToken } from '../src/domain/random.js';
import { RP_REDIRECT, RP_SECRET, startTokenService, type TokenServiceHarness } from './support/harness.js';
import { basic, mintCode, postForm } from './support/codes.js';

/**
 * Issue 13 §7 at the token endpoint: the grant change and its audit event commit together. When the database is lost
 * after that commit (here: chaining the event fails), the client still gets the answer of the change that was made,
 * not a 503 that would have it retry a spent token; the event stays staged and the recovery chains it. A refused
 * request changes nothing but what its refusal means (a reuse revokes the grant), with its event in the same commit.
 */
describe.each(DATABASE_KINDS)('token endpoint writes and their audit events (%s)', (kind) => {
  let h: TokenServiceHarness;
  const auth = { authorization: basic('demo-rp', RP_SECRET) };
  const token = (form: Record<string, string>) => postForm(`${h.issuer}/token`, form, auth);

  beforeAll(async () => {
    h = await startTokenService({ kind, upstream: false });
  });
  afterAll(async () => h?.close());
  afterEach(() => chainAgain());

  /** Chaining the events of `commandId` fails, as when the database goes away right after the unit of work. */
  let chainAgain = () => {};
  function loseChainingOf(commandId: string) {
    chainAgain = loseAuditChaining(h.platform.audit, (event) => event.commandId === commandId);
  }

  /** After the audit chaining this process queued (commands answer before it). */
  const count = async (text: string, params: unknown[] = []) => {
    await h.platform.audit.settled();
    return (await h.platform.db.withTenant('demo', (sql) => sql.query<{ n: number }>(text, params))).rows[0]!.n;
  };
  const staged = () => count('SELECT count(*)::int AS n FROM audit_pending');
  const events = (commandId: string, result: string) =>
    count('SELECT count(*)::int AS n FROM audit_events WHERE command_id = $1 AND result = $2', [commandId, result]);

  async function exchange(): Promise<string> {
    const { code, verifier } = await mintCode(h);
    const res = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: RP_REDIRECT,
      code_verifier: verifier,
    });
    expect(res.status).toBe(200);
    return res.body.refresh_token as string;
  }

  it('answers a committed rotation even when its event cannot be chained; the recovery chains it', async () => {
    const refresh = await exchange();
    const before = await events('token-service.token.refresh', 'success');
    loseChainingOf('token-service.token.refresh');
    // Before: the rotation committed, the audit append failed, the answer was 503, and the retry revoked the grant.
    const rotated = await token({ grant_type: 'refresh_token', refresh_token: refresh });
    expect(rotated.status).toBe(200);
    chainAgain();
    expect(await staged()).toBeGreaterThan(0);
    const next = await token({ grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token as string });
    expect(next.status).toBe(200);
    await h.platform.audit.recoverPending(-60);
    expect(await staged()).toBe(0);
    expect(await events('token-service.token.refresh', 'success')).toBe(before + 2);
    expect(await h.platform.audit.verify('demo')).toMatchObject({ ok: true });
  });

  it('answers a consumed code and a revocation whose events cannot be chained', async () => {
    loseChainingOf('token-service.token.exchange-authorization-code');
    const refresh = await exchange();
    chainAgain();
    loseChainingOf('token-service.revocation.revoke');
    const revoked = await postForm(`${h.issuer}/revoke`, { token: refresh, token_type_hint: 'refresh_token' }, auth);
    expect(revoked.status).toBe(200);
    chainAgain();
    const grant = await count(
      `SELECT count(*)::int AS n FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id
        WHERE t.token_hash = $1 AND g.revoked_at IS NOT NULL`,
      [hashToken(refresh)],
    );
    expect(grant).toBe(1);
    await h.platform.audit.recoverPending(-60);
    expect(await staged()).toBe(0);
    expect(await h.platform.audit.verify('demo')).toMatchObject({ ok: true });
  });

  it('a refused refresh changes nothing; a reuse revokes the grant with its failure event in the same commit', async () => {
    const refresh = await exchange();
    const failures = await events('token-service.token.refresh', 'failure');
    const wrongScope = await token({ grant_type: 'refresh_token', refresh_token: refresh, scope: 'openid admin' });
    expect(wrongScope.status).toBe(400);
    expect(wrongScope.body.error).toBe('invalid_scope');
    expect(
      await count('SELECT count(*)::int AS n FROM oauth_refresh_tokens WHERE token_hash = $1 AND rotated_at IS NULL', [
        hashToken(refresh),
      ]),
    ).toBe(1);
    const rotated = await token({ grant_type: 'refresh_token', refresh_token: refresh });
    expect(rotated.status).toBe(200);
    loseChainingOf('token-service.token.refresh');
    const reuse = await token({ grant_type: 'refresh_token', refresh_token: refresh });
    // The refusal stands even though its event is only staged: the revocation it reports was committed with it.
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    chainAgain();
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token as string })).status,
    ).toBe(400);
    await h.platform.audit.recoverPending(-60);
    // The scope refusal, the reuse (staged as the failure it answered, then recovered) and the revoked successor.
    expect(await events('token-service.token.refresh', 'failure')).toBe(failures + 3);
    const recovered = await h.platform.db.withTenant('demo', (sql) =>
      sql.query<{ error: string }>(
        `SELECT details->>'error' AS error FROM audit_events
          WHERE command_id = 'token-service.token.refresh' AND details->>'recovered' = 'true' AND result = 'failure'`,
      ),
    );
    // The bus records the platform's error code (an OAuth invalid_grant is an invalid_request there).
    expect(recovered.rows.map((r) => r.error)).toEqual(['invalid_request']);
    expect(await h.platform.audit.verify('demo')).toMatchObject({ ok: true });
  });
});
