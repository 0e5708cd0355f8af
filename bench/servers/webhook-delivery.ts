import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRoleApp, enqueue, outboundService, platformMigrations } from '@tessera/platform';
import { createPostgresTestDatabase } from '@tessera/platform/testing';
import { serveUntilSignal } from '../lib/server-child.js';
import { startBenchPlatform } from '../lib/bench-platform.js';

/**
 * Issue 15 `webhook-delivery`: `POST /bench` writes one webhook event in its own tenant unit of work (the outbox row
 * commits with the change that causes it) and answers once the receiver on loopback has acknowledged that event
 * (by its webhook-id), delivered, signed, by this process's delivery loop. So a completed request is a delivered
 * event, and the server's CPU per request covers the outbox write and the delivery. On PostgreSQL. The receiver
 * runs in this process too (its share is small: it reads the body and answers 204).
 */
const database = await createPostgresTestDatabase();
const delivered = new Set<string>();
const waiting = new Map<string, () => void>();
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const id = String(req.headers['webhook-id']);
    const waiter = waiting.get(id);
    if (waiter) {
      waiting.delete(id);
      waiter();
    } else delivered.add(id);
    res.statusCode = 204;
    res.end();
  });
});
/** Resolves when the receiver has acknowledged the delivery `id` (before or after this call). */
const deliveredOnce = (id: string) =>
  delivered.delete(id) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(id, resolve));
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const { platform } = await startBenchPlatform({
  profile: 'test',
  database: { url: database.url, maxPoolSize: 10 },
  migrations: platformMigrations,
  overrides: { tenancy: { seedDemoTenant: true } },
});
const outbound = outboundService(platform, {
  allowPrivateOrigins: [receiverOrigin],
  pollIntervalMs: 20,
  batchSize: 100,
});
await outbound.createDestination('demo', { url: `${receiverOrigin}/hook`, eventTypes: ['bench.event'] });
outbound.start();

const app = await createRoleApp(platform, { role: 'bench', title: 'bench', family: 'platform' });
let sequence = 0;
app.post('/bench', async () => {
  const [id] = await platform.db.withTenant('demo', (sql) =>
    enqueue(sql, { type: 'bench.event', data: { sequence: sequence++ } }),
  );
  // Committed: wake this replica's loop if it is idle, as a producer in the process does (OutboundService.poke).
  outbound.poke();
  await deliveredOnce(id!);
  return { delivered: id };
});

await serveUntilSignal(
  app,
  () => outbound.stop(),
  () => platform.close(),
  () => new Promise<void>((resolve) => receiver.close(() => resolve())),
  () => database.drop(),
);
