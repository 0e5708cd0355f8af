import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { startPartyBed, type PartyBed } from './support/party-bed.js';

const SECRET = 'proxy-shared-secret-for-tests';
const trusted = { 'x-tenant-override-secret': SECRET };

/**
 * 001 §5: "in the party API an X-Tenant-ID header is a trusted-infrastructure override that is not used for ordinary
 * access control". Trusted here: the peer 127.0.0.1 (the configured network) with the configured secret.
 */
describe.each(DATABASE_KINDS)('X-Tenant-ID from trusted infrastructure (%s)', (kind) => {
  let bed: PartyBed;
  let platformAdmin: string;
  beforeAll(async () => {
    bed = await startPartyBed(kind, {
      issuerRoles: 'any',
      tenancy: {
        seedDemoTenant: true,
        trustedTenantOverride: {
          networks: ['127.0.0.1/32', '10.0.0.0/8'],
          secretSha256: createHash('sha256').update(SECRET).digest('hex'),
        },
      },
    });
    platformAdmin = await bed.issuer.sign(
      { sub: 'operator', tenant_id: 'alpha', roles: ['platform-admin'] },
      { expiresInSeconds: 3600 },
    );
  }, 120_000);
  afterAll(async () => bed?.close());

  const tenantOf = async (id: string) =>
    (await bed.superuser('SELECT tenant_id FROM parties WHERE id = $1', [id]))[0]!.tenant_id;

  it('names the tenant when the peer is in a trusted network and presents the secret', async () => {
    const res = await bed.call('POST', '/persons', {
      token: platformAdmin,
      body: { displayName: 'Placed By Gateway' },
      headers: { 'x-tenant-id': 'beta', ...trusted },
    });
    expect(res.status).toBe(201);
    expect(await tenantOf(res.body.id)).toBe('beta');
    const read = await bed.call('GET', `/persons/${res.body.id}`, {
      token: platformAdmin,
      headers: { 'x-tenant-id': 'beta', ...trusted },
    });
    expect(read.status).toBe(200);
    // Without the override the platform administrator's token resolves to its own tenant, where it is absent.
    expect((await bed.call('GET', `/persons/${res.body.id}`, { token: platformAdmin })).status).toBe(404);
  });

  it('grants nothing: a tenant administrator of alpha sent into beta by the gateway is refused by the policy', async () => {
    const res = await bed.call('POST', '/persons', {
      token: bed.tokens.adminA,
      body: { displayName: 'Not Allowed' },
      headers: { 'x-tenant-id': 'beta', ...trusted },
    });
    expect(res.status).toBe(403);
    const none = await bed.superuser("SELECT count(*)::int AS n FROM parties WHERE display_name = 'Not Allowed'");
    expect(none[0]!.n).toBe(0);
  });

  it('is ignored without the secret, with a wrong secret, and from a peer outside the networks', async () => {
    const cases: { headers: Record<string, string>; remoteAddress?: string }[] = [
      { headers: { 'x-tenant-id': 'beta' } },
      { headers: { 'x-tenant-id': 'beta', 'x-tenant-override-secret': 'guess' } },
      { headers: { 'x-tenant-id': 'beta', ...trusted }, remoteAddress: '192.0.2.7' },
      // A forwarded address is the caller's word: trust is the socket peer's.
      { headers: { 'x-tenant-id': 'beta', 'x-forwarded-for': '10.1.2.3' }, remoteAddress: '192.0.2.7' },
    ];
    for (const c of cases) {
      const res = await bed.call('POST', '/persons', {
        token: platformAdmin,
        body: { displayName: 'Stays Home' },
        headers: c.headers,
        ...(c.remoteAddress ? { remoteAddress: c.remoteAddress } : {}),
      });
      expect(res.status).toBe(201);
      expect(await tenantOf(res.body.id)).toBe('alpha');
    }
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the logs are flushed every second
    const warnings = bed.t.logs.records().filter((r) => r.msg === 'X-Tenant-ID from an untrusted source ignored');
    expect(warnings.length).toBeGreaterThanOrEqual(cases.length);
  });

  it('refuses an override that names no active tenant, before the endpoint', async () => {
    const res = await bed.call('GET', '/persons', {
      token: platformAdmin,
      headers: { 'x-tenant-id': 'nobody-here', ...trusted },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBeDefined();
  });
});
