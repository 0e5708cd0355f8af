import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@tessera/platform';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import type { IssuanceConfig } from '../src/config.js';
import { issuanceSessionsOn, type IssuanceSessionsPort } from '../src/index.js';
import { createIssuanceServices } from '../src/services.js';
import { answerWith, startConnector, type TestConnector } from './support/connectors.js';
import { startIssuanceBed, TEST_CONFIG, unique, type IssuanceBed } from './support/bed.js';

const admin = {
  id: 'offer-admin',
  kind: 'user' as const,
  tenantId: 'alpha',
  roles: ['tenant-admin'],
  scopes: [],
  clientId: null,
  issuer: null,
};

/**
 * The circuit breaker per connector destination (001 §6): a failing connector's circuit opens after N failed
 * attempts and holds its requests, half-opens after the cool-down for one probe (a failed probe re-opens it, a
 * good one closes it); another connector of the same sessions is not affected. Also the lease of an invocation
 * claim. Time is the platform clock's, moved by hand.
 */
describe.each(DATABASE_KINDS)('connector circuit breaker (%s)', (kind) => {
  let bed: IssuanceBed;
  let port: IssuanceSessionsPort;
  let brittle: TestConnector;
  let steady: TestConnector;
  const clock = new ManualClock();
  const config: IssuanceConfig = structuredClone(TEST_CONFIG);

  beforeAll(async () => {
    brittle = await startConnector('brittle', () => ({ status: 503 }));
    steady = await startConnector('steady', answerWith({ steady_value: 'ok' }));
    config.connectors = [brittle, steady].map((c) => ({
      tenantId: 'alpha',
      connectorId: c.connectorId,
      url: c.url,
      secret: c.secret,
      timeoutMs: 5000,
    }));
    config.connectorCalls = {
      ...config.connectorCalls,
      attempts: 1,
      breakerFailureThreshold: 3,
      breakerCooldownMs: 60_000,
      allowPrivateOrigins: [brittle.origin, steady.origin],
    };
    bed = await startIssuanceBed(kind, config);
    port = issuanceSessionsOn({ ...createIssuanceServices(bed.t.platform, config), clock });
  }, 120_000);
  afterAll(async () => {
    await port?.settled();
    await bed?.close();
    await brittle?.close();
    await steady?.close();
  });

  /** A session binding both connectors (optional) at the start, advanced once; answers its invocations. */
  const round = async () => {
    const { correlation_id: id } = await port.startSession('alpha', admin, {
      pipeline_configuration: {
        pipelineId: unique('pipe'),
        invocationBindings: [
          { connectorId: 'brittle', phase: 'OID4VCI_START', required: false },
          { connectorId: 'steady', phase: 'OID4VCI_START', required: false },
        ],
        claimsBindings: [{ credentialConfigurationId: 'pid', claims: [{ attributePath: 'steady_value' }] }],
      },
    });
    const view = await port.advance('alpha', id, 'OID4VCI_START');
    await port.settled();
    const res = await bed.call('GET', `/sessions/${id}/invocations`);
    const byConnector = Object.fromEntries(
      (res.body.data as Record<string, unknown>[]).map((i) => [i.connector_id, i]),
    );
    return { view, brittle: byConnector.brittle!, steady: byConnector.steady! };
  };

  const circuitStates = async () => {
    const text = await bed.t.platform.metrics.registry.metrics();
    const state = (connector: string) =>
      Number(
        new RegExp(`issuance_connector_circuit_state\\{tenant="alpha",connector="${connector}"\\} (\\d)`).exec(
          text,
        )?.[1],
      );
    return { brittle: state('brittle'), steady: state('steady') };
  };

  it('opens after N failures, holds requests while open, half-opens after the cool-down, and spares the others', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await round();
      expect(r.brittle).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 503 });
      expect(r.steady).toMatchObject({ status: 'contributed' });
    }
    expect(brittle.received).toHaveLength(3);
    expect(await circuitStates()).toEqual({ brittle: 2, steady: 0 });

    // Open: no request leaves for brittle; steady goes on, and so does the session (brittle is optional).
    const held = await round();
    expect(held.brittle).toMatchObject({ status: 'failed', attempts: 0, last_error_kind: 'circuit_open' });
    expect(held.steady).toMatchObject({ status: 'contributed' });
    expect(held.view.status).toBe('READY');
    expect(brittle.received).toHaveLength(3);
    expect(steady.received).toHaveLength(4);

    // After the cool-down one probe goes; it fails, so the circuit opens again for another cool-down.
    clock.advance(61);
    const probe = await round();
    expect(probe.brittle).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 503 });
    expect(brittle.received).toHaveLength(4);
    expect((await round()).brittle).toMatchObject({ last_error_kind: 'circuit_open' });
    expect(brittle.received).toHaveLength(4);

    // The next probe succeeds: the circuit closes and requests flow again.
    brittle.behave = answerWith({ brittle_value: 'back' });
    clock.advance(61);
    expect((await round()).brittle).toMatchObject({ status: 'contributed', attempts: 1, last_status_code: 200 });
    expect(await circuitStates()).toEqual({ brittle: 0, steady: 0 });
    expect((await round()).brittle).toMatchObject({ status: 'contributed' });
    expect(brittle.received).toHaveLength(6);
  });

  it('takes over an invocation whose replica stopped mid-way once its lease has passed', async () => {
    const { correlation_id: id } = await port.startSession('alpha', admin, {
      pipeline_configuration: {
        pipelineId: unique('pipe'),
        invocationBindings: [{ connectorId: 'steady', phase: 'OID4VCI_START' }],
        claimsBindings: [{ credentialConfigurationId: 'pid', claims: [{ attributePath: 'steady_value' }] }],
      },
    });
    // Another replica claimed the binding and stopped before any outcome.
    await bed.superuser(
      `INSERT INTO issuance_connector_invocations
         (tenant_id, id, session_id, connector_id, phase, mode, status, created_at, updated_at)
       SELECT 'alpha', gen_random_uuid(), s.id, 'steady', 'OID4VCI_START', 'SYNCHRONOUS', 'invoking', $2, $2
         FROM issuance_sessions s WHERE s.correlation_id = $1`,
      [id, clock.now()],
    );
    const before = steady.received.length;
    expect((await port.advance('alpha', id, 'OID4VCI_START')).status).toBe('IN_PROGRESS');
    await port.settled();
    expect(steady.received).toHaveLength(before);
    clock.advance(config.connectorCalls.invocationLeaseMs / 1000 + 1);
    expect((await port.advance('alpha', id, 'OID4VCI_START')).status).toBe('READY');
    expect(steady.received).toHaveLength(before + 1);
    const res = await bed.call('GET', `/sessions/${id}/invocations`);
    expect(res.body.data).toEqual([
      expect.objectContaining({ connector_id: 'steady', status: 'contributed', attempts: 1 }),
    ]);
  });
});
