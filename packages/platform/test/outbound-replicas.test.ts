import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue, OutboundService, verifyWebhook } from '../src/outbound/index.js';
import { startTestReceiver, type TestReceiver } from './support/outbound-receiver.js';
import { createTestPlatform, type TestPlatform } from '../src/testing/index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two replicas are two platforms over one PostgreSQL database (PGlite has one process by nature). */
describe('outbound delivery across two replicas (postgres)', () => {
  let first: TestPlatform;
  let second: TestPlatform;
  let receiver: TestReceiver;
  const services: OutboundService[] = [];

  beforeAll(async () => {
    receiver = await startTestReceiver();
    const masterKey = randomBytes(32).toString('base64');
    first = await createTestPlatform('postgres', { overrides: { keys: { masterKey } } });
    second = await createTestPlatform('postgres', {
      overrides: { keys: { masterKey }, database: { url: first.databaseUrl } },
    });
    await first.platform.tenants.ensure({ id: 'alpha', displayName: 'Alpha' });
    for (const t of [first, second])
      services.push(
        new OutboundService(t.platform, { allowPrivateOrigins: [receiver.origin], pollIntervalMs: 20, batchSize: 10 }),
      );
  }, 60_000);

  afterAll(async () => {
    for (const s of services) await s.stop();
    await second?.close();
    await first?.close();
    await receiver?.close();
  });

  it('delivers 200 events with no duplicate at the receiver', async () => {
    const { secret } = await services[0]!.createDestination('alpha', { url: receiver.url });
    for (const s of services) s.start();
    const ids = new Set<string>();
    // Enqueued through both replicas, in several transactions, while both deliver.
    for (let batch = 0; batch < 10; batch++) {
      const t = batch % 2 === 0 ? first : second;
      await t.platform.db.withTenant('alpha', async (sql) => {
        for (let i = 0; i < 20; i++)
          for (const id of await enqueue(sql, { type: 'thing.created', data: { batch, i } })) ids.add(id);
      });
    }
    expect(ids.size).toBe(200);
    const end = Date.now() + 120_000;
    while (receiver.countsById().size < 200 && Date.now() < end) await sleep(50);
    // Rounds after the last delivery find nothing: give the loops time to misbehave.
    await sleep(500);
    const counts = receiver.countsById();
    expect(counts.size).toBe(200);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(receiver.requests).toHaveLength(200);
    expect(new Set(counts.keys())).toEqual(ids);
    for (const r of receiver.requests) verifyWebhook(secret, r.headers as Record<string, string>, r.body);

    // Both replicas counted their own deliveries; together, each event once.
    const delivered = await Promise.all(
      [first, second].map(async (t) => {
        const m = /webhook_deliveries_total\{outcome="delivered"\} (\d+)/.exec(await t.platform.metrics.render());
        return Number(m?.[1] ?? 0);
      }),
    );
    expect(delivered[0]! + delivered[1]!).toBe(200);
  }, 180_000);
});
