import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoleApp, type RoleApp } from '../src/http/create-app.js';
import { authenticationEvents } from '../src/http/authentication-events.js';
import type { AuditEvent } from '../src/audit/audit-log.js';
import {
  DATABASE_KINDS,
  createTestPlatform,
  startTestIssuer,
  type TestIssuer,
  type TestPlatform,
} from '../src/testing/index.js';

const FLOODER = '203.0.113.5';
const OTHERS = Array.from({ length: 10 }, (_, i) => `198.51.100.${i + 1}`);

/**
 * Issue 15 item 3, "How it must show": 1,000 bad bearer tokens in a second produce a bounded number of audit events
 * that carry the suppressed count, and the audit chain still verifies.
 */
describe.each(DATABASE_KINDS)('authentication events of refused bearer tokens (%s)', (kind) => {
  let t: TestPlatform;
  let app: RoleApp;
  let issuer: TestIssuer;
  let stranger: TestIssuer;

  beforeAll(async () => {
    issuer = await startTestIssuer();
    stranger = await startTestIssuer();
    t = await createTestPlatform(kind, {
      overrides: {
        auth: { issuers: [{ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience }] },
        rateLimit: { enabled: false },
      },
    });
    app = await createRoleApp(t.platform, { role: 'test', title: 'Test API', family: 'platform' });
    app.get('/probe', { config: { family: 'platform' } }, (request) => ({ who: request.state.principal?.id ?? null }));
    await app.ready();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await t?.close();
    await issuer?.close();
    await stranger?.close();
  });

  const probe = (token: string, remoteAddress: string) =>
    app.inject({ method: 'GET', url: '/probe', remoteAddress, headers: { authorization: `Bearer ${token}` } });

  const failures = async (): Promise<AuditEvent[]> =>
    (await t.platform.audit.query({ tenantId: 'demo', type: 'authentication.failed', limit: 500 })).events;

  it('writes a bounded number of events for 1,000 refusals, counts every one of them, and the chain verifies', async () => {
    const expired = await issuer.sign({ sub: 'eve-expired' }, { expiresInSeconds: -600 });
    const untrusted = await stranger.sign({ sub: 'mallory' });
    const tokens = ['not-a-jwt', expired, untrusted, `${expired.slice(0, -4)}AAAA`];
    const requests: Promise<{ statusCode: number }>[] = [];
    for (let i = 0; i < 1000; i++) {
      const source = i % 10 === 0 ? OTHERS[(i / 10) % OTHERS.length]! : FLOODER;
      requests.push(probe(tokens[i % tokens.length]!, source));
    }
    const answers = await Promise.all(requests);
    expect(answers.every((a) => a.statusCode === 401)).toBe(true);
    // A valid token still passes and writes nothing.
    expect((await probe(await issuer.sign({ sub: 'alice' }), FLOODER)).statusCode).toBe(200);

    const recorder = authenticationEvents(t.platform);
    await recorder.flush();
    const events = await failures();
    const single = events.filter((e) => e.details.summary !== true);
    const summaries = events.filter((e) => e.details.summary === true);
    const { eventsPerSource, eventsPerTenant } = recorder.options;

    // Bounded: per source and per tenant within the window, plus one summary.
    expect(single.length).toBeLessThanOrEqual(eventsPerTenant);
    expect(single.filter((e) => e.details.source === FLOODER)).toHaveLength(eventsPerSource);
    expect(summaries).toHaveLength(1);
    const summary = summaries[0]!;
    // Every refusal is an event or counted in the summary.
    expect(single.length + Number(summary.details.suppressed)).toBe(1000);
    expect(summary.details.written).toBe(single.length);
    const bySource = summary.details.sources as Record<string, number>;
    expect(bySource[FLOODER]).toBe(900 - eventsPerSource);
    const reasons = summary.details.reasons as Record<string, number>;
    expect(Object.values(reasons).reduce((a, b) => a + b, 0)).toBe(summary.details.suppressed);
    expect(Object.keys(reasons).every((r) => r.startsWith('bearer_token:'))).toBe(true);

    // Each event names the method, the reason kind and the claimed principal, never the token.
    for (const e of single) {
      expect(e.result).toBe('failure');
      expect(e.details).toMatchObject({ method: 'bearer_token', endpoint: '/probe' });
      expect(['malformed', 'expired', 'issuer_not_trusted', 'invalid']).toContain(e.details.reason);
    }
    const text = JSON.stringify(events);
    for (const token of tokens) expect(text).not.toContain(token);

    const verified = await t.platform.audit.verify('demo');
    expect(verified.ok).toBe(true);

    // The next window starts afresh: the flooder is written again, and an empty flush writes nothing.
    await probe(expired, FLOODER);
    await probe(untrusted, FLOODER);
    await recorder.flush();
    const after = await failures();
    expect(after.length).toBe(events.length + 2);
    // The claimed principal and issuer of a refused token are named (read without verification).
    expect(after.find((e) => e.details.reason === 'expired')?.principalId).toBe('eve-expired');
    expect(after.find((e) => e.details.reason === 'issuer_not_trusted' && e.details.source === FLOODER)).toMatchObject({
      principalId: 'mallory',
      details: { issuer: stranger.issuer },
    });
    await recorder.flush();
    expect(await failures()).toHaveLength(after.length);
  });
});
