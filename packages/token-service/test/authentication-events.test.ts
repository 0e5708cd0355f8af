import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticationEvents, type AuditEvent } from '@tessera/platform';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { RP_SECRET, startTokenService, type TokenServiceHarness } from './support/harness.js';
import { basic, postForm } from './support/codes.js';

/**
 * Issue 15 item 3: a refused client authentication at /token, /introspect and /revoke, and a refused DPoP proof,
 * each write `authentication.failed` with the reason kind and the claimed client (never the secret or the proof);
 * successful client authentications are summarised per window.
 */
describe.each(DATABASE_KINDS)('authentication events of the token service (%s)', (kind) => {
  let h: TokenServiceHarness;

  beforeAll(async () => {
    h = await startTokenService({
      kind,
      upstream: false,
      config: { dpop: { enabled: true, nonceRequired: false, iatWindowSeconds: 60 } },
    });
  }, 60_000);
  afterAll(async () => h?.close());

  const events = async (type: string): Promise<AuditEvent[]> => {
    await authenticationEvents(h.platform).flush();
    return (await h.platform.audit.query({ tenantId: 'demo', type, limit: 100 })).events;
  };

  it('records a refused client authentication at /token, /introspect and /revoke with the claimed client', async () => {
    const wrong = basic('demo-rp', 'wrong-secret-value');
    const forms = {
      '/token': { grant_type: 'authorization_code', code: 'x', redirect_uri: 'http://127.0.0.1:8400/callback' },
      '/introspect': { token: 'not-a-token' },
      '/revoke': { token: 'not-a-token' },
    };
    for (const [path, form] of Object.entries(forms)) {
      const res = await postForm(`${h.issuer}${path}`, form, { authorization: wrong });
      expect(res.status).toBe(401);
    }
    const failed = (await events('authentication.failed')).filter((e) => e.details.method === 'client_authentication');
    expect(failed.map((e) => e.details.endpoint).sort()).toEqual(['/introspect', '/revoke', '/token']);
    for (const e of failed) {
      expect(e).toMatchObject({ principalId: 'demo-rp', result: 'failure', details: { reason: 'invalid_client' } });
      expect(typeof e.details.source).toBe('string');
    }
    expect(JSON.stringify(failed)).not.toContain('wrong-secret-value');
  });

  it('records a refused DPoP proof at /token, with the client it claimed', async () => {
    const res = await postForm(
      `${h.issuer}/token`,
      { grant_type: 'client_credentials', scope: 'reconciliation:read' },
      { authorization: basic('reconciler', 'reconciler-secret'), dpop: 'not-a-jwt-proof' },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_dpop_proof');
    const refused = (await events('authentication.failed')).filter((e) => e.details.method === 'dpop_proof');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      principalId: 'reconciler',
      details: { reason: 'invalid_dpop_proof', endpoint: '/token' },
    });
    expect(JSON.stringify(refused)).not.toContain('not-a-jwt-proof');
  });

  it('records a refused access token at /userinfo with the subject it claimed, and no event without a token', async () => {
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const forged = `${b64({ alg: 'ES256', typ: 'at+jwt' })}.${b64({ sub: 'spoofed-user', iss: h.issuer })}.c2lnbmF0dXJl`;
    const refused = await fetch(`${h.issuer}/userinfo`, { headers: { authorization: `Bearer ${forged}` } });
    expect(refused.status).toBe(401);
    expect((await fetch(`${h.issuer}/userinfo`)).status).toBe(401);
    const bearer = (await events('authentication.failed')).filter((e) => e.details.method === 'bearer_token');
    expect(bearer).toHaveLength(1);
    expect(bearer[0]).toMatchObject({
      principalId: 'spoofed-user',
      details: { reason: 'invalid_token', endpoint: '/userinfo' },
    });
    expect(JSON.stringify(bearer)).not.toContain(forged);
  });

  it('summarises successful client authentications in one event per window', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await postForm(
        `${h.issuer}/introspect`,
        { token: 'not-a-token' },
        { authorization: basic('demo-rp', RP_SECRET) },
      );
      expect(res.status).toBe(200);
    }
    const summaries = await events('authentication.succeeded');
    const last = summaries[summaries.length - 1]!;
    expect(last).toMatchObject({ result: 'success', principalId: null, details: { summary: true } });
    expect((last.details.principals as Record<string, number>)['client_authentication:demo-rp']).toBe(3);
    // Nothing more to summarise: the next flush writes no event.
    expect(await events('authentication.succeeded')).toHaveLength(summaries.length);
    expect((await h.platform.audit.verify('demo')).ok).toBe(true);
  });
});
