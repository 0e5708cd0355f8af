import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue, OutboundService, verifyWebhook } from '../src/outbound/index.js';
import { startTestReceiver, type TestReceiver } from './support/outbound-receiver.js';
import { createTestPlatform, type TestPlatform } from '../src/testing/index.js';

const SENDER = fileURLToPath(new URL('./support/outbound-sender-process.ts', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, limitMs = 60_000) {
  const end = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

describe('a sending process killed mid-delivery (postgres)', () => {
  let t: TestPlatform;
  let receiver: TestReceiver;
  let masterKey: string;
  const children: ChildProcess[] = [];

  const startSender = async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', SENDER], {
      env: {
        ...process.env,
        DATABASE_URL: t.databaseUrl!,
        MASTER_KEY: masterKey,
        RECEIVER_ORIGIN: receiver.origin,
        TIMEOUT_MS: '3000',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    await waitFor(() => out.includes('ready'), 'the sender to start');
    return child;
  };
  const exited = (child: ChildProcess) =>
    new Promise<void>((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
    );

  beforeAll(async () => {
    receiver = await startTestReceiver();
    masterKey = randomBytes(32).toString('base64');
    t = await createTestPlatform('postgres', { overrides: { keys: { masterKey } } });
    await t.platform.tenants.ensure({ id: 'alpha', displayName: 'Alpha' });
  }, 60_000);

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(children.map(exited));
    await t?.close();
    await receiver?.close();
  });

  it('delivers after the restart, acknowledged once at the receiver by its webhook-id', async () => {
    const service = new OutboundService(t.platform, { allowPrivateOrigins: [receiver.origin] });
    const { destination, secret } = await service.createDestination('alpha', { url: receiver.url });
    receiver.answer(0); // the receiver holds the request: the sender is mid-delivery when it dies
    const [id] = await t.platform.db.withTenant('alpha', (sql) => enqueue(sql, { type: 'thing.created', data: {} }));

    const doomed = await startSender();
    await waitFor(() => receiver.requests.length === 1, 'the first delivery attempt');
    doomed.kill('SIGKILL');
    await exited(doomed);
    expect(doomed.signalCode).toBe('SIGKILL');
    const [inFlight] = await service.listDeliveries('alpha', { destinationId: destination.id, limit: 10 });
    expect(inFlight).toMatchObject({ id, status: 'delivering', attempts: 1 });

    receiver.answer(204);
    const restarted = await startSender();
    await waitFor(() => receiver.requests.some((r) => r.acknowledged), 'the delivery after the restart');
    restarted.kill('SIGTERM');
    await exited(restarted);

    const acknowledged = receiver.requests.filter((r) => r.acknowledged);
    expect(acknowledged).toHaveLength(1);
    expect(receiver.requests.every((r) => r.headers['webhook-id'] === id)).toBe(true);
    expect(verifyWebhook(secret, acknowledged[0]!.headers as Record<string, string>, acknowledged[0]!.body).id).toBe(
      id,
    );
    const [done] = await service.listDeliveries('alpha', { destinationId: destination.id, limit: 10 });
    expect(done).toMatchObject({ id, status: 'delivered', attempts: 2, lastStatusCode: 204 });
  }, 120_000);
});
