import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError, type AppendOptions, type AuditEventInput } from '@tessera/platform';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { startReconBed, type ReconBed } from './support/recon-bed.js';

/**
 * Issue 13 §7 for the erasure (000 §4.3): the erasure and its `gdpr_erasure` event commit in one unit of work. When
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

  it('answers a committed erasure whose event cannot be chained yet; the recovery chains it', async () => {
    const token = await bed.ourToken('recon-full');
    const identityId = await bed.createIdentity({ service_id: 'S-erase-atomic', email: 'erase@demo.example' });
    const audit = bed.platform.audit;
    const append = audit.append.bind(audit);
    vi.spyOn(audit, 'append').mockImplementation((event: AuditEventInput, options?: AppendOptions) =>
      event.type === 'gdpr_erasure'
        ? Promise.reject(new AppError('service_unavailable', 'The database is unreachable.'))
        : append(event, options),
    );
    expect((await bed.call({ method: 'DELETE', path: `/${identityId}`, token })).status).toBe(204);
    vi.restoreAllMocks();

    // Erased, and its event durable (staged) although nothing was chained.
    expect((await bed.call({ method: 'GET', path: `/${identityId}`, token })).status).toBe(404);
    const erasures = async () =>
      (await bed.platform.audit.query({ tenantId: 'demo', type: 'gdpr_erasure' })).events.filter(
        (e) => e.businessIds.internalIdentityId === identityId,
      );
    expect(await erasures()).toHaveLength(0);
    const staged = await bed.platform.db.withTenant('demo', (sql) =>
      sql.query<{ type: string }>(`SELECT event->>'type' AS type FROM audit_pending`),
    );
    expect(staged.rows.map((r) => r.type)).toContain('gdpr_erasure');

    await bed.platform.audit.recoverPending(-60);
    const chained = await erasures();
    expect(chained).toHaveLength(1);
    expect(chained[0]!.details).toMatchObject({ client_id: 'recon-full', existed: true, recovered: true });
    expect(await bed.platform.audit.verify('demo')).toMatchObject({ ok: true });
  });

  it('an erasure that fails changes nothing and stages nothing', async () => {
    const token = await bed.ourToken('recon-full');
    const identityId = await bed.createIdentity({ service_id: 'S-erase-fails', email: 'fails@demo.example' });
    const pending = async () =>
      (
        await bed.platform.db.withTenant('demo', (sql) =>
          sql.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_pending'),
        )
      ).rows[0]!.n;
    const before = await pending();
    // The identity store's erase fails inside the unit of work: the deletions before it roll back with the event.
    vi.spyOn(bed.b.identities, 'erase').mockRejectedValueOnce(new Error('disk full'));
    expect((await bed.call({ method: 'DELETE', path: `/${identityId}`, token })).status).toBe(500);
    vi.restoreAllMocks();
    expect((await bed.call({ method: 'GET', path: `/${identityId}`, token })).status).toBe(200);
    expect(await pending()).toBe(before);
  });
});
