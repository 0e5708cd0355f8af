import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventForwardingService, TESSERA_AUDIT_EVENT } from '../src/event-forwarding/index.js';
import { OutboundService } from '../src/outbound/index.js';
import { createTestPlatform, type TestPlatform } from '../src/testing/index.js';
import { jtiOf, startSetReceiver, type SetReceiver } from './support/set-receiver.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two replicas are two platforms over one PostgreSQL database, each running both loops. */
describe('audit forwarding across two replicas (postgres)', () => {
  let first: TestPlatform;
  let second: TestPlatform;
  let receiver: SetReceiver;
  let collector: SetReceiver;
  const loops: { stop(): Promise<void> }[] = [];
  const forwarders: EventForwardingService[] = [];

  beforeAll(async () => {
    receiver = await startSetReceiver();
    collector = await startSetReceiver();
    const masterKey = randomBytes(32).toString('base64');
    first = await createTestPlatform('postgres', { overrides: { keys: { masterKey } } });
    second = await createTestPlatform('postgres', {
      overrides: { keys: { masterKey }, database: { url: first.databaseUrl } },
    });
    await first.platform.tenants.ensure({ id: 'alpha', displayName: 'Alpha' });
    for (const t of [first, second]) {
      const outbound = new OutboundService(t.platform, {
        allowPrivateOrigins: [receiver.origin, collector.origin],
        pollIntervalMs: 20,
        batchSize: 10,
      });
      // Small batches, so that the replicas race for the same streams many times.
      const forwarding = new EventForwardingService(t.platform, outbound, {
        transmitterUrl: 'https://transmitter.test',
        pollIntervalMs: 10,
        batchSize: 7,
      });
      forwarders.push(forwarding);
      loops.push(outbound, forwarding);
    }
  }, 60_000);

  afterAll(async () => {
    for (const l of loops) await l.stop();
    await second?.close();
    await first?.close();
    await receiver?.close();
    await collector?.close();
  });

  it('forwards 150 audit events to an SSF stream and a JSON forwarder with no duplicate at either receiver', async () => {
    const principal = {
      id: 'siem',
      kind: 'client',
      tenantId: 'alpha',
      roles: [],
      scopes: [],
      clientId: 'siem',
      issuer: null,
    } as const;
    await forwarders[0]!.createStream('alpha', principal, {
      endpointUrl: receiver.url,
      eventsRequested: [TESSERA_AUDIT_EVENT],
    });
    await forwarders[1]!.createForwarder('alpha', { url: collector.url, format: 'json' });
    for (const l of loops) (l as OutboundService | EventForwardingService).start();
    const ids = new Set<string>();
    // Appended through both replicas while both forward and deliver.
    for (let batch = 0; batch < 10; batch++) {
      const t = batch % 2 === 0 ? first : second;
      await Promise.all(
        Array.from({ length: 15 }, () => {
          const eventId = randomUUID();
          ids.add(eventId);
          return t.platform.audit.append({ tenantId: 'alpha', type: 'command.executed', result: 'success', eventId });
        }),
      );
    }
    await Promise.all([first, second].map((t) => t.platform.audit.whenIdle()));
    const end = Date.now() + 120_000;
    const received = () => new Set(receiver.requests.map(jtiOf));
    const collected = () => new Set(collector.requests.map((r) => (JSON.parse(r.body) as { eventId: string }).eventId));
    while (![...ids].every((id) => received().has(id) && collected().has(id)) && Date.now() < end) await sleep(50);
    // Rounds after the last delivery find nothing: give the loops time to misbehave.
    await sleep(500);
    for (const id of ids) {
      expect(received().has(id)).toBe(true);
      expect(collected().has(id)).toBe(true);
    }
    // Each event once: every jti and every webhook-id exactly once at each receiver.
    for (const r of [receiver, collector]) {
      const byHook = r.countsBy((x) => String(x.headers['webhook-id']));
      expect([...byHook.values()].every((n) => n === 1)).toBe(true);
      expect(r.requests.length).toBe(byHook.size);
    }
    expect([...receiver.countsBy(jtiOf).values()].every((n) => n === 1)).toBe(true);
    // The replicas' delivery counts add up to what the receivers got: no delivery counted twice or lost.
    const delivered = await Promise.all(
      [first, second].map(async (t) => {
        const m = /webhook_deliveries_total\{outcome="delivered"\} (\d+)/.exec(await t.platform.metrics.render());
        return Number(m?.[1] ?? 0);
      }),
    );
    expect(delivered[0]! + delivered[1]!).toBe(receiver.requests.length + collector.requests.length);
  }, 180_000);
});
