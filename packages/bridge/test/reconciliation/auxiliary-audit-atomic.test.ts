import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, refuseAuditStaging } from '@tessera/platform/testing';
import { startReconBed, unique, type ReconBed } from './support/recon-bed.js';

/**
 * Issue 13 §7 for the auxiliary data of the external reconciliation API (000 §2.6, §4.3): a PUT or DELETE commits with
 * its audit event, staged in the same unit of work; when the database refuses the event right after the change, the
 * call answers 503 and the stored record is as it was.
 */
describe.each(DATABASE_KINDS)('auxiliary data and its audit events in one commit (%s)', (kind) => {
  let bed: ReconBed;
  let token: string;
  let lift: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    bed = await startReconBed({ kind });
    token = await bed.ourToken('recon-full');
  });
  afterAll(async () => bed?.close());
  afterEach(async () => {
    await lift?.();
    lift = null;
  });

  const allow = async () => {
    await lift?.();
    lift = null;
  };
  const put = (id: string, data: unknown) =>
    bed.call({ method: 'PUT', path: `/${id}/auxiliary/crm`, token, body: { data } });
  const read = (id: string) => bed.call({ method: 'GET', path: `/${id}/auxiliary/crm`, token });
  const remove = (id: string) => bed.call({ method: 'DELETE', path: `/${id}/auxiliary/crm`, token });
  const eventsOf = async (commandId: string, id: string) =>
    (await bed.platform.audit.query({ tenantId: 'demo', commandId, limit: 1000 })).events
      .filter((e) => e.businessIds.internalIdentityId === id)
      .map((e) => e.result);
  /** Still staged once the chaining this process queued has ended (commands answer before it). */
  const staged = async () => {
    await bed.platform.audit.settled();
    return (
      await bed.platform.db.withTenant('demo', (sql) =>
        sql.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_pending'),
      )
    ).rows[0]!.n;
  };

  it('PUT: a refused event stores nothing, and leaves a stored record as it was', async () => {
    const id = await bed.createIdentity({ service_id: unique('aux-atomic'), email: 'aux@demo.example' });
    lift = await refuseAuditStaging(bed.platform.db, { commandId: 'reconciliation-api.auxiliary.put' });
    expect((await put(id, { tier: 'gold' })).status).toBe(503);
    expect((await read(id)).status).toBe(404);
    await allow();
    expect((await put(id, { tier: 'gold' })).status).toBe(201);

    lift = await refuseAuditStaging(bed.platform.db, { commandId: 'reconciliation-api.auxiliary.put' });
    expect((await put(id, { tier: 'silver' })).status).toBe(503);
    expect((await read(id)).body).toMatchObject({ data: { tier: 'gold' } });
    await allow();
    expect(await eventsOf('reconciliation-api.auxiliary.put', id)).toEqual(['failure', 'success', 'failure']);
    expect(await staged()).toBe(0);
  });

  it('DELETE: a refused event deletes nothing; the retry deletes, with its event', async () => {
    const id = await bed.createIdentity({ service_id: unique('aux-atomic'), email: 'aux2@demo.example' });
    expect((await put(id, { tier: 'gold' })).status).toBe(201);
    lift = await refuseAuditStaging(bed.platform.db, { commandId: 'reconciliation-api.auxiliary.delete' });
    expect((await remove(id)).status).toBe(503);
    expect((await read(id)).status).toBe(200);
    await allow();
    expect((await remove(id)).status).toBe(204);
    expect((await read(id)).status).toBe(404);
    expect(await eventsOf('reconciliation-api.auxiliary.delete', id)).toEqual(['failure', 'success']);
    expect(await staged()).toBe(0);
  });
});
