import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue, OutboundService } from '../src/outbound/index.js';
import { recordFailures } from '../src/outbound/storage/breaker-store.js';
import { claimDue, recordOutcomes, type DeliveryOutcome } from '../src/outbound/storage/outbox-store.js';
import { DATABASE_KINDS, createTestPlatform, type TestPlatform } from '../src/testing/index.js';

/** The outcomes of a delivery round written together (issue 15): rows and circuits as one by one. */
describe.each(DATABASE_KINDS)('outbound outcomes written together (%s)', (kind) => {
  let t: TestPlatform;
  let service: OutboundService;
  const tenant = 'alpha';

  beforeAll(async () => {
    t = await createTestPlatform(kind);
    await t.platform.tenants.ensure({ id: tenant, displayName: 'Alpha' });
    service = new OutboundService(t.platform, { allowPrivateOrigins: ['http://127.0.0.1:9'] });
  }, 60_000);
  afterAll(() => t?.close());

  const circuitOf = async (id: string) => (await service.listDestinations(tenant)).find((d) => d.id === id)!.circuit;
  const setFailures = (id: string, failures: number) =>
    t.platform.db.withPlatform((sql) =>
      sql.query(`UPDATE webhook_destinations SET consecutive_failures = $2 WHERE id = $1`, [id, failures]),
    );

  it('writes each row of this attempt, leaves a row claimed again, and closes the circuits that answered', async () => {
    const { destination } = await service.createDestination(tenant, { url: 'http://127.0.0.1:9/hook' });
    await t.platform.db.withTenant(tenant, async (sql) => {
      for (let i = 0; i < 3; i++) await enqueue(sql, { type: 'thing.created', data: { i } });
    });
    const now = new Date();
    const [a, b, c] = await t.platform.db.withPlatform((sql) => claimDue(sql, now, 60_000, 10));
    await setFailures(destination.id, 2);
    const outcome = (d: typeof a, status: DeliveryOutcome['status']): DeliveryOutcome => ({
      delivery: d!,
      status,
      at: now,
      nextAttemptAt: status === 'failed' ? new Date(now.getTime() + 5000) : now,
      statusCode: status === 'delivered' ? 204 : 500,
      kind: status === 'delivered' ? null : 'http_status',
      latencyMs: 3,
    });
    // The third was claimed again meanwhile (its lease ran out): its attempt count moved on.
    const stale = { ...c!, attempts: c!.attempts - 1 };
    const written = await t.platform.db.withPlatform((sql) =>
      recordOutcomes(
        sql,
        [outcome(a, 'delivered'), outcome(b, 'failed'), outcome(stale, 'delivered')],
        [{ tenantId: tenant, id: destination.id }],
      ),
    );
    expect(written).toBe(2);
    const rows = await service.listDeliveries(tenant, { destinationId: destination.id, limit: 10 });
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(a!.id)).toMatchObject({ status: 'delivered', lastStatusCode: 204, lastError: null });
    expect(byId.get(a!.id)!.deliveredAt).not.toBeNull();
    expect(byId.get(b!.id)).toMatchObject({ status: 'failed', lastStatusCode: 500, lastError: 'http_status' });
    expect(byId.get(b!.id)!.deliveredAt).toBeNull();
    expect(byId.get(c!.id)).toMatchObject({ status: 'delivering', lastStatusCode: null });
    expect(await circuitOf(destination.id)).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
    await service.deleteDestination(tenant, destination.id);
  });

  it('counts several failures at once as one by one: the threshold opens the circuit', async () => {
    const { destination } = await service.createDestination(tenant, { url: 'http://127.0.0.1:9/hook' });
    const now = new Date();
    await setFailures(destination.id, 1);
    const failed = (n: number) =>
      t.platform.db.withPlatform((sql) => recordFailures(sql, tenant, destination.id, now, 4, n));
    expect(await failed(2)).toBe('closed');
    expect(await circuitOf(destination.id)).toMatchObject({ state: 'closed', consecutiveFailures: 3 });
    expect(await failed(2)).toBe('open');
    expect(await circuitOf(destination.id)).toEqual({
      state: 'open',
      consecutiveFailures: 5,
      openedAt: now.toISOString(),
    });
    await service.deleteDestination(tenant, destination.id);
  });
});
