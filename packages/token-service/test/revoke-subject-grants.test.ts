import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StagedAuditEvents, type Sql } from '@tessera/platform';
import { createTestPlatform, DATABASE_KINDS, type TestPlatform } from '@tessera/platform/testing';
import { REVOKE_SUBJECT_GRANTS, revokeSubjectGrants } from '../src/index.js';
import { migrations } from './support/harness.js';

/**
 * The token service's revocation of every grant of a subject (000 §4.3 "cached tokens"; issue 13 §9), run in the
 * caller's unit of work as the bridge's erasure runs it: only the subject's grants are revoked and emptied, their
 * refresh tokens and codes deleted, its audit event staged in that unit, and nothing of it survives a rollback.
 */
describe.each(DATABASE_KINDS)('revokeSubjectGrants (%s)', (kind) => {
  let t: TestPlatform;
  const revoke = () => revokeSubjectGrants({ clock: t.platform.clock });
  const ctx = { tenantId: 'demo', principal: null, correlationId: 'corr-revoke', trace: null };

  beforeAll(async () => {
    t = await createTestPlatform(kind, { migrations });
  });
  afterAll(async () => t?.close());

  async function grantOf(sql: Sql, subject: string): Promise<string> {
    const id = randomUUID();
    await sql.query(
      `INSERT INTO oauth_grants (id, client_id, subject, scope, claims, created_at, expires_at)
       VALUES ($1, 'demo-rp', $2, 'openid', '{"email":"x@demo.example"}', now(), now() + interval '1 hour')`,
      [id, subject],
    );
    await sql.query(
      `INSERT INTO oauth_refresh_tokens (token_hash, grant_id, client_id, scope, created_at, expires_at)
       VALUES ($1, $2, 'demo-rp', 'openid', now(), now() + interval '1 hour')`,
      [randomBytes(16).toString('hex'), id],
    );
    await sql.query(
      `INSERT INTO oauth_authorization_codes (code_hash, grant_id, client_id, redirect_uri, code_challenge,
                                              code_challenge_method, created_at, expires_at)
       VALUES ($1, $2, 'demo-rp', 'https://rp.example/cb', 'c', 'S256', now(), now() + interval '1 minute')`,
      [randomBytes(16).toString('hex'), id],
    );
    return id;
  }

  const state = (grantId: string) =>
    t.platform.db.withTenant('demo', async (sql) => ({
      grant: (
        await sql.query<{ subject: string | null; claims: unknown; revoked_reason: string | null }>(
          'SELECT subject, claims, revoked_reason FROM oauth_grants WHERE id = $1',
          [grantId],
        )
      ).rows[0],
      refreshTokens: (
        await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_refresh_tokens WHERE grant_id = $1', [
          grantId,
        ])
      ).rows[0]!.n,
      codes: (
        await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_authorization_codes WHERE grant_id = $1', [
          grantId,
        ])
      ).rows[0]!.n,
    }));

  it("revokes the subject's grants only, in the caller's unit, with its event; idempotent", async () => {
    const subject = randomUUID();
    const other = randomUUID();
    const [first, second, kept] = await t.platform.db.withTenant('demo', async (sql) => [
      await grantOf(sql, subject),
      await grantOf(sql, subject),
      await grantOf(sql, other),
    ]);

    const events = new StagedAuditEvents(t.platform.audit);
    const counts = await t.platform.db.withTenant('demo', (sql) =>
      revoke()({ ctx, sql, events }, { subject, reason: 'gdpr_erasure' }),
    );
    await events.chain();
    expect(counts).toEqual({ grants: 2, refreshTokens: 2, authorizationCodes: 2 });
    for (const id of [first!, second!])
      expect(await state(id)).toEqual({
        grant: { subject: null, claims: {}, revoked_reason: 'gdpr_erasure' },
        refreshTokens: 0,
        codes: 0,
      });
    expect(await state(kept!)).toEqual({
      grant: { subject: other, claims: { email: 'x@demo.example' }, revoked_reason: null },
      refreshTokens: 1,
      codes: 1,
    });

    const again = await t.platform.db.withTenant('demo', (sql) =>
      revoke()({ ctx, sql, events }, { subject, reason: 'gdpr_erasure' }),
    );
    await events.chain();
    expect(again).toEqual({ grants: 0, refreshTokens: 0, authorizationCodes: 0 });

    const audited = (await t.platform.audit.query({ tenantId: 'demo', commandId: REVOKE_SUBJECT_GRANTS })).events;
    expect(audited.filter((e) => e.businessIds.subject === subject).map((e) => e.details)).toEqual([
      { reason: 'gdpr_erasure', grants: 2, refreshTokens: 2, authorizationCodes: 2 },
      { reason: 'gdpr_erasure', grants: 0, refreshTokens: 0, authorizationCodes: 0 },
    ]);
    expect(audited.every((e) => e.correlationId === 'corr-revoke' && e.type === 'command.executed')).toBe(true);
    expect(await t.platform.audit.verify('demo')).toMatchObject({ ok: true });
  });

  it("rolls back with the caller's unit of work: nothing revoked, nothing staged", async () => {
    const subject = randomUUID();
    const grantId = await t.platform.db.withTenant('demo', (sql) => grantOf(sql, subject));
    const events = new StagedAuditEvents(t.platform.audit);
    await expect(
      t.platform.db.withTenant('demo', async (sql) => {
        await revoke()({ ctx, sql, events }, { subject, reason: 'gdpr_erasure' });
        throw new Error('the caller fails after the revocation');
      }),
    ).rejects.toThrow('the caller fails');
    events.discard();
    expect((await state(grantId)).grant).toMatchObject({ subject, revoked_reason: null });
    const staged = await t.platform.db.withTenant('demo', (sql) =>
      sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM audit_pending WHERE event->'businessIds'->>'subject' = $1`,
        [subject],
      ),
    );
    expect(staged.rows[0]!.n).toBe(0);
  });
});
