import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventForwardingService, TESSERA_AUDIT_EVENT } from '../src/event-forwarding/index.js';
import { OutboundService } from '../src/outbound/index.js';
import { createTestPlatform, type TestPlatform } from '../src/testing/index.js';
import { jtiOf, startSetReceiver, type SetReceiver } from './support/set-receiver.js';

const SENDER = fileURLToPath(new URL('./support/forwarding-sender-process.ts', import.meta.url));
const TRANSMITTER = 'https://transmitter.test';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, limitMs = 60_000) {
  const end = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

describe('a forwarding process killed mid-delivery (postgres)', () => {
  let t: TestPlatform;
  let receiver: SetReceiver;
  let masterKey: string;
  const children: ChildProcess[] = [];

  const startSender = async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', SENDER], {
      env: {
        ...process.env,
        DATABASE_URL: t.databaseUrl!,
        MASTER_KEY: masterKey,
        RECEIVER_ORIGIN: receiver.origin,
        TRANSMITTER_URL: TRANSMITTER,
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
    receiver = await startSetReceiver();
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

  it('delivers the SET after the restart, acknowledged once at the receiver by its jti', async () => {
    const outbound = new OutboundService(t.platform, { allowPrivateOrigins: [receiver.origin] });
    const forwarding = new EventForwardingService(t.platform, outbound, { transmitterUrl: TRANSMITTER });
    const stream = await forwarding.createStream(
      'alpha',
      { id: 'siem', kind: 'client', tenantId: 'alpha', roles: [], scopes: [], clientId: 'siem', issuer: null },
      { endpointUrl: receiver.url, eventsRequested: [TESSERA_AUDIT_EVENT] },
    );
    receiver.answer(0); // the receiver holds the request: the sender is mid-delivery when it dies
    const eventId = randomUUID();
    await t.platform.audit.append({ tenantId: 'alpha', type: 'command.executed', result: 'success', eventId });
    await t.platform.audit.whenIdle();

    const doomed = await startSender();
    await waitFor(() => receiver.requests.length === 1, 'the first delivery attempt');
    doomed.kill('SIGKILL');
    await exited(doomed);
    expect(doomed.signalCode).toBe('SIGKILL');
    const [inFlight] = await outbound.listDeliveries('alpha', { limit: 10 });
    expect(inFlight).toMatchObject({ status: 'delivering', attempts: 1 });

    receiver.answer(202);
    const restarted = await startSender();
    await waitFor(() => receiver.requests.some((r) => r.acknowledged), 'the delivery after the restart');
    // Give the restarted replica rounds in which it could misbehave (forward or deliver again).
    await sleep(500);
    restarted.kill('SIGTERM');
    await exited(restarted);

    const acknowledged = receiver.requests.filter((r) => r.acknowledged);
    expect(acknowledged).toHaveLength(1);
    expect(receiver.requests.every((r) => jtiOf(r) === eventId)).toBe(true);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const { payload } = await jwtVerify(acknowledged[0]!.body, createLocalJWKSet(await forwarding.jwks('alpha')), {
      issuer: stream.iss,
      audience: 'siem',
      typ: 'secevent+jwt',
    });
    expect(payload.jti).toBe(eventId);
    const [done] = await outbound.listDeliveries('alpha', { limit: 10 });
    expect(done).toMatchObject({ id: inFlight!.id, status: 'delivered', attempts: 2, lastStatusCode: 202 });
  }, 120_000);
});
