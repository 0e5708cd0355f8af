import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue, OutboundService, verifyWebhook, type Delivery } from '../src/outbound/index.js';
import { startTestReceiver, type TestReceiver } from './support/outbound-receiver.js';
import { DATABASE_KINDS, createTestPlatform, type TestPlatform } from '../src/testing/index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs delivery rounds until `done` holds (generous bound: the machine may be loaded). */
async function roundsUntil(service: OutboundService, done: () => boolean | Promise<boolean>, limitMs = 30_000) {
  const end = Date.now() + limitMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await service.deliverDue();
    await sleep(20);
  }
}

describe.each(DATABASE_KINDS)('outbound delivery (%s)', (kind) => {
  let t: TestPlatform;
  let good: TestReceiver;
  let flaky: TestReceiver;
  let service: OutboundService;
  const tenant = 'alpha';

  beforeAll(async () => {
    good = await startTestReceiver();
    flaky = await startTestReceiver();
    t = await createTestPlatform(kind);
    await t.platform.tenants.ensure({ id: tenant, displayName: 'Alpha' });
    await t.platform.tenants.ensure({ id: 'beta', displayName: 'Beta' });
    service = new OutboundService(t.platform, {
      allowPrivateOrigins: [good.origin, flaky.origin],
      retryBaseMs: 20,
      retryCapMs: 100,
      breakerFailureThreshold: 3,
      breakerCooldownMs: 400,
      timeoutMs: 5000,
    });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await good?.close();
    await flaky?.close();
  });

  const deliveriesOf = (destinationId: string) =>
    service.listDeliveries(tenant, { destinationId, limit: 200 }) as Promise<Delivery[]>;

  it('delivers each event once, signed so that verifyWebhook accepts it, and records the status', async () => {
    const { destination, secret } = await service.createDestination(tenant, {
      url: good.url,
      eventTypes: ['thing.created'],
    });
    const ids = await t.platform.db.withTenant(tenant, async (sql) => {
      const out: string[] = [];
      for (let i = 0; i < 5; i++) out.push(...(await enqueue(sql, { type: 'thing.created', data: { n: i } })));
      // Not subscribed: no delivery.
      out.push(...(await enqueue(sql, { type: 'thing.deleted', data: {} })));
      return out;
    });
    expect(ids).toHaveLength(5);
    await roundsUntil(service, async () => (await deliveriesOf(destination.id)).every((d) => d.status === 'delivered'));
    // More rounds find nothing left to send.
    for (let i = 0; i < 3; i++) expect(await service.deliverDue()).toBe(0);

    expect(good.requests).toHaveLength(5);
    const seen = good.requests.map((r) => {
      const { id } = verifyWebhook(secret, r.headers as Record<string, string>, r.body, { toleranceSeconds: 60 });
      expect(r.headers['content-type']).toBe('application/json');
      return { id, body: JSON.parse(r.body) as { type: string; timestamp: string; data: { n: number } } };
    });
    expect(seen.map((s) => s.id).sort()).toEqual([...ids].sort());
    expect(seen.map((s) => s.body.data.n).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(seen.every((s) => s.body.type === 'thing.created' && !Number.isNaN(Date.parse(s.body.timestamp)))).toBe(
      true,
    );
    const rows = await deliveriesOf(destination.id);
    expect(rows.every((d) => d.attempts === 1 && d.lastStatusCode === 204 && d.deliveredAt !== null)).toBe(true);
    // Another tenant sees none of them (row-level security).
    expect(await service.listDeliveries('beta', { limit: 200 })).toEqual([]);
    await service.deleteDestination(tenant, destination.id);
  });

  it('never sends a delivery enqueued in a transaction that rolls back', async () => {
    const { destination } = await service.createDestination(tenant, { url: good.url });
    const before = good.requests.length;
    await expect(
      t.platform.db.withTenant(tenant, async (sql) => {
        await enqueue(sql, { type: 'thing.created', data: { doomed: true } });
        throw new Error('the causing change fails');
      }),
    ).rejects.toThrow('the causing change fails');
    for (let i = 0; i < 3; i++) await service.deliverDue();
    expect(await deliveriesOf(destination.id)).toEqual([]);
    expect(good.requests.length).toBe(before);
    await service.deleteDestination(tenant, destination.id);
  });

  it('opens the circuit of a failing receiver while another keeps receiving; the half-open probe closes it', async () => {
    good.requests.length = 0;
    flaky.answer(500);
    const ok = await service.createDestination(tenant, { url: good.url });
    const bad = await service.createDestination(tenant, { url: flaky.url });
    const enqueueBoth = (n: number) =>
      t.platform.db.withTenant(tenant, async (sql) => {
        for (let i = 0; i < n; i++) await enqueue(sql, { type: 'thing.updated', data: { i } });
      });
    await enqueueBoth(3);
    await roundsUntil(service, async () => {
      const list = await service.listDestinations(tenant);
      return list.find((d) => d.id === bad.destination.id)!.circuit.state === 'open';
    });
    const failedRequests = flaky.requests.length;
    expect(failedRequests).toBeGreaterThanOrEqual(3);

    // While open: the failing destination gets nothing, the other one gets everything.
    await enqueueBoth(4);
    await roundsUntil(service, () => good.requests.length === 7);
    expect(flaky.requests.length).toBe(failedRequests);
    const held = await deliveriesOf(bad.destination.id);
    expect(held.filter((d) => d.status !== 'delivered')).toHaveLength(7);
    expect(held.every((d) => d.lastError === null || (d.lastError === 'http_status' && d.lastStatusCode === 500))).toBe(
      true,
    );

    // Still failing after the cool-down: the one probe fails and the circuit opens again.
    await sleep(450);
    await roundsUntil(service, () => flaky.requests.length === failedRequests + 1);
    expect((await service.listDestinations(tenant)).find((d) => d.id === bad.destination.id)!.circuit.state).toBe(
      'open',
    );
    for (let i = 0; i < 3; i++) await service.deliverDue();
    expect(flaky.requests.length).toBe(failedRequests + 1);

    // The receiver recovers: after the cool-down exactly one probe goes first; its success closes the circuit.
    flaky.answer(200);
    await sleep(450);
    const probeRound = flaky.requests.length;
    await roundsUntil(service, () => flaky.requests.length > probeRound);
    expect(flaky.requests.length).toBe(probeRound + 1);
    expect((await service.listDestinations(tenant)).find((d) => d.id === bad.destination.id)!.circuit).toMatchObject({
      state: 'closed',
      consecutiveFailures: 0,
    });
    await roundsUntil(service, async () =>
      (await deliveriesOf(bad.destination.id)).every((d) => d.status === 'delivered'),
    );
    // Each event reached the recovered receiver once with a 2xx: counted by webhook-id among the 200s.
    const ids = new Set((await deliveriesOf(bad.destination.id)).map((d) => d.id));
    expect(ids.size).toBe(7);
    expect([...flaky.countsById().keys()].filter((id) => ids.has(id))).toHaveLength(7);

    const metrics = await t.platform.metrics.render();
    expect(metrics).toMatch(/webhook_deliveries_total\{outcome="delivered"\} \d+/);
    expect(metrics).toMatch(/webhook_deliveries_total\{outcome="failed"\} \d+/);
    expect(metrics).toMatch(/webhook_delivery_duration_seconds_bucket/);
    expect(metrics).toContain(`webhook_circuit_state{tenant="alpha",destination="${bad.destination.id}"} 0`);
    await service.deleteDestination(tenant, ok.destination.id);
    await service.deleteDestination(tenant, bad.destination.id);
  });

  it('retries with backoff, then dead-letters a delivery past its maximum age', async () => {
    const dying = new OutboundService(t.platform, {
      allowPrivateOrigins: [flaky.origin],
      retryBaseMs: 20,
      retryCapMs: 80,
      maxAgeMs: 600,
      breakerFailureThreshold: 1000,
    });
    flaky.answer(503);
    const before = flaky.requests.length;
    const { destination } = await dying.createDestination(tenant, { url: flaky.url });
    await t.platform.db.withTenant(tenant, (sql) => enqueue(sql, { type: 'thing.created', data: {} }));
    await roundsUntil(dying, async () => (await deliveriesOf(destination.id))[0]!.status === 'dead');
    const [dead] = await deliveriesOf(destination.id);
    expect(dead).toMatchObject({ status: 'dead', lastStatusCode: 503, lastError: 'http_status', nextAttemptAt: null });
    expect(dead!.attempts).toBeGreaterThanOrEqual(2);
    expect(flaky.requests.length - before).toBe(dead!.attempts);
    for (let i = 0; i < 3; i++) await dying.deliverDue();
    expect(flaky.requests.length - before).toBe(dead!.attempts);
    expect(await t.platform.metrics.render()).toMatch(/webhook_deliveries_total\{outcome="dead"\} [1-9]/);
    await dying.deleteDestination(tenant, destination.id);
  });

  it('refuses an event larger than 256 KiB at enqueue, with nothing written', async () => {
    const { destination } = await service.createDestination(tenant, { url: good.url });
    await expect(
      t.platform.db.withTenant(tenant, (sql) => enqueue(sql, { type: 'big', data: 'x'.repeat(256 * 1024) })),
    ).rejects.toThrow(RangeError);
    expect(await deliveriesOf(destination.id)).toEqual([]);
    await service.deleteDestination(tenant, destination.id);
  });

  it('refuses a destination on a private address at creation, and at delivery', async () => {
    for (const url of ['https://10.1.2.3/hook', 'https://169.254.169.254/', 'https://localhost/x', good.url + 'x'])
      await expect(
        new OutboundService(t.platform).createDestination(tenant, {
          url: url.replace(good.origin, 'http://127.0.0.1:9'),
        }),
      ).rejects.toMatchObject({ code: 'invalid_request', field: 'url' });
    // Registered while its origin was allow-listed; a service without that exemption refuses to connect.
    const strict = new OutboundService(t.platform, { retryBaseMs: 10, retryCapMs: 20 });
    const { destination } = await service.createDestination(tenant, { url: good.url });
    const before = good.requests.length;
    await t.platform.db.withTenant(tenant, (sql) => enqueue(sql, { type: 'thing.created', data: {} }));
    await roundsUntil(strict, async () => (await deliveriesOf(destination.id))[0]!.attempts >= 1);
    const [refused] = await deliveriesOf(destination.id);
    expect(refused).toMatchObject({ status: 'failed', lastError: 'refused', lastStatusCode: null });
    expect(good.requests.length).toBe(before);
    await service.deleteDestination(tenant, destination.id);
  });
});
