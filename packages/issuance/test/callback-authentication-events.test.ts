import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticationEvents } from '@tessera/platform';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { startIssuanceBed, type IssuanceBed } from './support/bed.js';

/**
 * Issue 15 item 3: a refused capability token at the callback ingress is an authentication event (the session the
 * caller named, never the token), in the tenant the request reached: the token's own tenant is not trusted before
 * the token verifies.
 */
describe.each(DATABASE_KINDS)('callback ingress authentication events (%s)', (kind) => {
  let bed: IssuanceBed;
  beforeAll(async () => {
    bed = await startIssuanceBed(kind);
  }, 120_000);
  afterAll(async () => bed?.close());

  it('records a refused capability token as authentication.failed without the token', async () => {
    const forged = 'cb1.1.eyJ0IjoiYWxwaGEifQ.forged-mac-value';
    const res = await bed.call('POST', `/sessions/corr-forged-1/callbacks/${forged}`, {
      token: null,
      body: { groups: [{ contributorId: 'registry', phase: 'OID4VCI_DEFERRED', attributes: [] }] },
    });
    expect(res.status).toBe(401);
    await authenticationEvents(bed.t.platform).flush();
    const tenantId = bed.t.platform.config.tenancy.defaultTenant!;
    const { events } = await bed.t.platform.audit.query({ tenantId, type: 'authentication.failed', limit: 50 });
    const refused = events.filter((e) => e.details.method === 'capability_token');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      principalId: 'callback:corr-forged-1',
      details: { reason: 'invalid_capability_token' },
    });
    expect(JSON.stringify(refused)).not.toContain('forged-mac-value');
  });
});
