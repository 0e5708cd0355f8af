import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DATABASE_KINDS, loseAuditChaining } from '@tessera/platform/testing';
import { startReconBed, type ReconBed } from './support/recon-bed.js';

/**
 * Issue 13 §7 for the erasure (000 §4.3): the erasure, the token service's revocation of the identity's grants (its
 * port, issue 13 §9) and both audit events commit in one unit of work. When
 * the database is lost right after that commit (chaining the event fails), the erasure is still answered 204, as it
 * happened; the event stays staged and the recovery chains it. Before, the 204 waited for an append that failed, the
 * erasure was answered with an error although it had been made, and its event was lost.
 */
describe.each(DATABASE_KINDS)('erasure and its audit event in one commit (%s)', (kind) => {
  let bed: ReconBed;

  beforeAll(async () => {
    bed = await startReconBed({ kind });
  });
  afterAll(async () => bed?.close());
  afterEach(() => vi.restoreAllMocks());

  /** A grant of the token service for the identity, with a refresh token (as a login at the token service leaves). */
  async function grantOf(identityId: string): Promise<string> {
    const grantId = randomUUID();
    await bed.platform.db.withTenant('demo', async (sql) => {
      await sql.query(
        `INSERT INTO oauth_grants (id, client_id, subject, scope, created_at, expires_at)
         VALUES ($1, 'demo-rp', $2, 'openid offline_access', now(), now() + interval '1 hour')`,
        [grantId, identityId],
      );
      await sql.query(
        `INSERT INTO oauth_refresh_tokens (token_hash, grant_id, client_id, scope, created_at, expires_at)
         VALUES ($1, $2, 'demo-rp', 'openid offline_access', now(), now() + interval '1 hour')`,
        [randomBytes(16).toString('hex'), grantId],
      );
    });
    return grantId;
  }

  const grantState = async (grantId: string) =>
    bed.platform.db.withTenant('demo', async (sql) => ({
      grant: (
        await sql.query<{ subject: string | null; revoked_reason: string | null }>(
          'SELECT subject, revoked_reason FROM oauth_grants WHERE id = $1',
          [grantId],
        )
      ).rows[0],
      refreshTokens: (
        await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_refresh_tokens WHERE grant_id = $1', [
          grantId,
        ])
      ).rows[0]!.n,
    }));

  it('answers a committed erasure whose event cannot be chained yet; the recovery chains it', async () => {
    const token = await bed.ourToken('recon-full');
    const identityId = await bed.createIdentity({ service_id: 'S-erase-atomic', email: 'erase@demo.example' });
    const grantId = await grantOf(identityId);
    const chainAgain = loseAuditChaining(
      bed.platform.audit,
      (event) => event.type === 'gdpr_erasure' || event.commandId === 'token-service.grants.revoke-subject',
    );
    expect((await bed.call({ method: 'DELETE', path: `/${identityId}`, token })).status).toBe(204);
    chainAgain();

    // Erased, its grant revoked by the token service, and both events durable (staged) although nothing was chained.
    expect((await bed.call({ method: 'GET', path: `/${identityId}`, token })).status).toBe(404);
    expect(await grantState(grantId)).toEqual({
      grant: { subject: null, revoked_reason: 'gdpr_erasure' },
      refreshTokens: 0,
    });
    const erasures = async () =>
      (await bed.platform.audit.query({ tenantId: 'demo', type: 'gdpr_erasure' })).events.filter(
        (e) => e.businessIds.internalIdentityId === identityId,
      );
    expect(await erasures()).toHaveLength(0);
    await bed.platform.audit.settled();
    const staged = await bed.platform.db.withTenant('demo', (sql) =>
      sql.query<{ type: string; command: string }>(
        `SELECT event->>'type' AS type, event->>'commandId' AS command FROM audit_pending`,
      ),
    );
    expect(staged.rows).toEqual(
      expect.arrayContaining([
        { type: 'gdpr_erasure', command: 'reconciliation-api.identities.erase' },
        { type: 'command.executed', command: 'token-service.grants.revoke-subject' },
      ]),
    );

    await bed.platform.audit.recoverPending(-60);
    const chained = await erasures();
    expect(chained).toHaveLength(1);
    expect(chained[0]!.details).toMatchObject({
      client_id: 'recon-full',
      existed: true,
      tokenGrants: 1,
      recovered: true,
    });
    const revocation = (
      await bed.platform.audit.query({ tenantId: 'demo', commandId: 'token-service.grants.revoke-subject' })
    ).events.find((e) => e.businessIds.subject === identityId);
    expect(revocation).toMatchObject({
      principalId: 'recon-full',
      correlationId: chained[0]!.correlationId,
      details: { reason: 'gdpr_erasure', grants: 1, refreshTokens: 1, recovered: true },
    });
    expect(await bed.platform.audit.verify('demo')).toMatchObject({ ok: true });
  });

  it('an erasure that fails changes nothing in either context and stages nothing', async () => {
    const token = await bed.ourToken('recon-full');
    const identityId = await bed.createIdentity({ service_id: 'S-erase-fails', email: 'fails@demo.example' });
    const grantId = await grantOf(identityId);
    const pending = async () => {
      await bed.platform.audit.settled();
      return (
        await bed.platform.db.withTenant('demo', (sql) =>
          sql.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_pending'),
        )
      ).rows[0]!.n;
    };
    const before = await pending();
    // The identity store's erase fails inside the unit of work: the deletions before it, and the token service's
    // revocation of the identity's grant, roll back with the events.
    vi.spyOn(bed.b.identities, 'erase').mockRejectedValueOnce(new Error('disk full'));
    expect((await bed.call({ method: 'DELETE', path: `/${identityId}`, token })).status).toBe(500);
    vi.restoreAllMocks();
    expect((await bed.call({ method: 'GET', path: `/${identityId}`, token })).status).toBe(200);
    expect(await grantState(grantId)).toEqual({
      grant: { subject: identityId, revoked_reason: null },
      refreshTokens: 1,
    });
    expect(await pending()).toBe(before);
  });
});
