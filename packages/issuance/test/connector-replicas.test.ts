import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { IssuanceConfig } from '../src/config.js';
import { createIssuanceSessions } from '../src/index.js';
import { answerWith, startConnector, type TestConnector } from './support/connectors.js';
import { startIssuanceBed, TEST_CONFIG, unique, type IssuanceBed, type Replica } from './support/bed.js';

const admin = {
  id: 'offer-admin',
  kind: 'user' as const,
  tenantId: 'alpha',
  roles: ['tenant-admin'],
  scopes: [],
  clientId: null,
  issuer: null,
};

const tenAttributes = (prefix: string) =>
  Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`${prefix}.a${i}`, `${prefix}-value-${i}`]));

/**
 * Two replicas (two whole platforms) on one PostgreSQL database driving one session: each connector is invoked
 * once although both replicas advance, and the two connectors' answers, applied by the two replicas at the same
 * moment, both land in the bag.
 */
describe('connectors from two replicas on one PostgreSQL', () => {
  let bed: IssuanceBed;
  let other: Replica;
  const connectors: Record<string, TestConnector> = {};
  const config: IssuanceConfig = structuredClone(TEST_CONFIG);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    for (const name of ['left', 'right'])
      connectors[name] = await startConnector(name, async (inv) => {
        await gate;
        return answerWith(tenAttributes(name))(inv);
      });
    config.connectors = Object.values(connectors).map((c) => ({
      tenantId: 'alpha',
      connectorId: c.connectorId,
      url: c.url,
      secret: c.secret,
      timeoutMs: 10_000,
    }));
    config.connectorCalls = {
      ...config.connectorCalls,
      syncWaitWindowMs: 50,
      allowPrivateOrigins: Object.values(connectors).map((c) => c.origin),
    };
    bed = await startIssuanceBed('postgres', config);
    other = await bed.replica();
  }, 120_000);
  afterAll(async () => {
    await bed?.close();
    for (const c of Object.values(connectors)) await c.close();
  });

  it('invokes each connector once and loses no attribute when both replicas apply answers at once', async () => {
    const one = createIssuanceSessions(bed.t.platform, config);
    const two = createIssuanceSessions(other.t.platform, config);
    const claims = [...Object.keys(tenAttributes('left')), ...Object.keys(tenAttributes('right'))];
    const { correlation_id: id } = await one.startSession('alpha', admin, {
      pipeline_configuration: {
        pipelineId: unique('pipe'),
        invocationBindings: [
          { connectorId: 'left', phase: 'OID4VCI_START' },
          { connectorId: 'right', phase: 'OID4VCI_TOKEN' },
        ],
        claimsBindings: [
          { credentialConfigurationId: 'pid', claims: claims.map((attributePath) => ({ attributePath })) },
        ],
      },
    });
    // Replica one invokes `left`; replica two, entering a later phase, finds `left` claimed and invokes `right`.
    // Both answers are held until both requests are out, then applied by their own replica at once.
    expect((await one.advance('alpha', id, 'OID4VCI_START')).status).toBe('IN_PROGRESS');
    expect((await two.advance('alpha', id, 'OID4VCI_TOKEN')).status).toBe('IN_PROGRESS');
    // The requests are out once each connector has received one (the wait window may pass before that).
    await vi.waitFor(() => {
      expect(connectors.left!.received).toHaveLength(1);
      expect(connectors.right!.received).toHaveLength(1);
    }, 10_000);
    release();
    await Promise.all([one.settled(), two.settled()]);

    expect((await one.get('alpha', id))?.status).toBe('READY');
    const bag = await bed.call('GET', `/sessions/${id}/attributes`, { token: bed.tokens.supportA });
    expect(bag.body.attributes).toHaveLength(20);
    expect(
      Object.fromEntries(bag.body.attributes.map((a: { path: string; value: unknown }) => [a.path, a.value])),
    ).toEqual({
      ...tenAttributes('left'),
      ...tenAttributes('right'),
    });
    expect(bag.body.contributors).toEqual({ left: 'CONTRIBUTED', right: 'CONTRIBUTED' });
    // A further advance from either replica invokes nobody again.
    await two.advance('alpha', id, 'OID4VCI_CREDENTIAL_REQUEST');
    await one.advance('alpha', id, 'OID4VCI_CREDENTIAL_REQUEST');
    expect(connectors.left!.received).toHaveLength(1);
    expect(connectors.right!.received).toHaveLength(1);
  });
});
