import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import type { IssuanceConfig } from '../src/config.js';
import { createIssuanceSessions, type IssuanceSessionsPort } from '../src/index.js';
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
 * Connectors over HTTP (001 §4.2, §6) driven through the session port: real HTTP servers as connectors, signed
 * requests, a synchronous answer, a 202 followed by the callback, failures of optional and required connectors,
 * delivery status, on both engines.
 */
describe.each(DATABASE_KINDS)('pipeline connectors (%s)', (kind) => {
  let bed: IssuanceBed;
  let port: IssuanceSessionsPort;
  const servers: Record<string, TestConnector> = {};
  let release!: () => void;
  const hung = new Promise<void>((resolve) => (release = resolve));
  const config: IssuanceConfig = structuredClone(TEST_CONFIG);

  beforeAll(async () => {
    servers.registry = await startConnector('registry', answerWith({ given_name: 'Ada', family_name: 'Lovelace' }));
    servers.badges = await startConnector('badges', () => ({ status: 202 }));
    servers.flaky = await startConnector('flaky', () => ({ status: 500 }));
    // Never answers within its timeout (the test releases it at the end).
    servers.hang = await startConnector('hang', () => hung.then(() => ({ status: 200 })));
    // A live server on loopback whose origin is not allowed: the SSRF guard refuses it before any request.
    servers.private = await startConnector('private', answerWith({ given_name: 'Mallory' }));
    servers.liar = await startConnector('liar', (inv) => ({
      status: 200,
      body: { groups: [{ contributorId: 'registry', phase: inv.body.data.phase, attributes: [] }] },
    }));
    config.connectors = Object.values(servers).map((c) => ({
      tenantId: 'alpha',
      connectorId: c.connectorId,
      url: c.url,
      secret: c.secret,
      timeoutMs: c.connectorId === 'hang' ? 300 : 5000,
    }));
    // A registered connector whose server is gone: every attempt is a network error.
    config.connectors.push({
      tenantId: 'alpha',
      connectorId: 'gone',
      url: 'http://127.0.0.1:9/invoke',
      secret: 'whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQ=',
      timeoutMs: 2000,
    });
    config.connectorCalls = {
      ...config.connectorCalls,
      retryBaseMs: 5,
      retryCapMs: 20,
      allowPrivateOrigins: [
        ...Object.values(servers)
          .filter((c) => c.connectorId !== 'private')
          .map((c) => c.origin),
        'http://127.0.0.1:9',
      ],
    };
    bed = await startIssuanceBed(kind, config);
    await bed.app.listen({ port: 0, host: '127.0.0.1' });
    config.connectorCalls.callbackBaseUrl = `http://127.0.0.1:${(bed.app.server.address() as AddressInfo).port}`;
    port = createIssuanceSessions(bed.t.platform, config);
  }, 120_000);
  afterAll(async () => {
    release();
    await port?.settled();
    await bed?.close();
    for (const s of Object.values(servers)) await s.close();
  });

  const start = async (invocationBindings: unknown[], claims: string[], extra: Record<string, unknown> = {}) => {
    const view = await port.startSession('alpha', admin, {
      pipeline_configuration: {
        pipelineId: unique('pipe'),
        invocationBindings: invocationBindings as never,
        claimsBindings: [
          {
            credentialConfigurationId: 'pid',
            deferrable: true,
            claims: claims.map((attributePath) => ({ attributePath })),
          },
        ],
      },
      ...extra,
    });
    return view.correlation_id;
  };

  const invocations = async (id: string) => {
    const res = await bed.call('GET', `/sessions/${id}/invocations`);
    expect(res.status).toBe(200);
    return res.body.data as Record<string, unknown>[];
  };

  it('a synchronous connector contributes, a 202 connector through its callback later; completeness flips on the last claim', async () => {
    const id = await start(
      [
        { connectorId: 'registry', phase: 'OID4VCI_START', inputConnectorFields: ['caseId'] },
        { connectorId: 'badges', phase: 'OID4VCI_CREDENTIAL_REQUEST', mode: 'DEFERRABLE' },
      ],
      ['given_name', 'family_name', 'level'],
      { initial_connector_fields: { caseId: 'C-1', secretNote: 'not for connectors' } },
    );
    const afterStart = await port.advance('alpha', id, 'OID4VCI_START');
    expect(afterStart).toMatchObject({ status: 'IN_PROGRESS', completed_phases: ['OID4VCI_START'] });
    // The request: signed (verified by the server), this session and phase, only the binding's input fields.
    const sent = servers.registry!.received.find((r) => r.body.data.correlation_id === id)!;
    expect(sent.body).toMatchObject({
      type: 'issuance.connector.invocation',
      data: {
        connector_id: 'registry',
        phase: 'OID4VCI_START',
        mode: 'SYNCHRONOUS',
        connector_fields: { caseId: 'C-1' },
      },
    });
    expect(sent.raw).not.toContain('not for connectors');
    expect(sent.body.data.callback_url).toContain(`/sessions/${id}/callbacks/cb1.`);
    expect(await port.claimsFor('alpha', id, 'pid')).toMatchObject({ complete: false, missing: ['level'] });

    // The deferrable connector answers 202 and calls back later (here: once the request has been deferred).
    let deferred!: () => void;
    const latch = new Promise<void>((resolve) => (deferred = resolve));
    let callback: Promise<Response> | undefined;
    servers.badges!.behave = (inv) => {
      callback = latch.then(() =>
        fetch(inv.body.data.callback_url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            groups: [
              { contributorId: 'badges', phase: 'OID4VCI_DEFERRED', attributes: [{ path: 'level', value: 'gold' }] },
            ],
          }),
        }),
      );
      return { status: 202 };
    };
    const requested = await port.advance('alpha', id, 'OID4VCI_CREDENTIAL_REQUEST');
    expect(requested.status).toBe('IN_PROGRESS');
    await port.markDeferred('alpha', id);
    await port.settled();
    expect((await port.get('alpha', id))?.status).toBe('DEFERRED');
    expect((await invocations(id)).find((i) => i.connector_id === 'badges')).toMatchObject({
      status: 'accepted',
      last_status_code: 202,
    });
    expect(callback).toBeDefined();
    deferred();
    expect((await callback!).status).toBe(200);
    expect((await port.get('alpha', id))?.status).toBe('READY');
    expect(await port.claimsFor('alpha', id, 'pid')).toEqual({
      complete: true,
      claims: { given_name: 'Ada', family_name: 'Lovelace', level: 'gold' },
    });
    const list = await invocations(id);
    expect(list.map((i) => [i.connector_id, i.status, i.attempts, i.last_status_code])).toEqual([
      ['registry', 'contributed', 1, 200],
      ['badges', 'contributed', 1, 202],
    ]);
    // Provenance: the connector and its phase (the callback's is the deferred phase).
    const bag = await bed.call('GET', `/sessions/${id}/attributes`, { token: bed.tokens.supportA });
    expect(bag.body.attributes.map((a: Record<string, unknown>) => [a.path, a.contributor_id, a.phase])).toEqual(
      expect.arrayContaining([
        ['given_name', 'registry', 'OID4VCI_START'],
        ['level', 'badges', 'OID4VCI_DEFERRED'],
      ]),
    );
    // At rest the contributed values are sealed.
    const stored = JSON.stringify(
      await bed.superuser(
        `SELECT a.value FROM issuance_session_attributes a JOIN issuance_sessions s ON s.id = a.session_id
          WHERE s.correlation_id = $1`,
        [id],
      ),
    );
    expect(stored).not.toContain('Lovelace');
    expect(stored).not.toContain('gold');
    // Each connector was invoked once: entering a later phase does not invoke an answered one again.
    expect(servers.registry!.received.filter((r) => r.body.data.correlation_id === id)).toHaveLength(1);
  });

  it("an optional connector's failure lets the session go on; a required one's fails it", async () => {
    const id = await start(
      [
        { connectorId: 'flaky', phase: 'OID4VCI_START', required: false },
        { connectorId: 'registry', phase: 'OID4VCI_START' },
      ],
      ['given_name'],
    );
    const view = await port.advance('alpha', id, 'OID4VCI_START');
    expect(view.status).toBe('READY');
    const flaky = (await invocations(id)).find((i) => i.connector_id === 'flaky');
    // 500 is retried: three attempts, then the optional contributor is released.
    expect(flaky).toMatchObject({
      status: 'failed',
      attempts: 3,
      last_status_code: 500,
      last_error_kind: 'http_status',
    });
    const bag = await bed.call('GET', `/sessions/${id}/attributes`, { token: bed.tokens.supportA });
    expect(bag.body.contributors).toMatchObject({ flaky: 'RELEASED', registry: 'CONTRIBUTED' });

    const failing = await start([{ connectorId: 'gone', phase: 'OID4VCI_START' }], ['given_name']);
    expect((await port.advance('alpha', failing, 'OID4VCI_START')).status).toBe('FAILED');
    expect((await invocations(failing))[0]).toMatchObject({
      status: 'failed',
      attempts: 3,
      last_error_kind: 'network',
    });
    const failed = await bed.call('GET', `/sessions/${failing}/attributes`, { token: bed.tokens.supportA });
    expect(failed.body.failure).toMatchObject({ kind: 'CONTRIBUTOR_FAILED', contributor_id: 'gone' });
    // The audit names the outcome, never a payload.
    const audit = await bed.superuser(
      `SELECT business_ids FROM audit_events WHERE command_id = 'issuance.pipeline.record-invocation-outcome'
        AND correlation_id = $1`,
      [failing],
    );
    expect(audit[0]?.business_ids).toMatchObject({ connectorId: 'gone', outcome: 'failed:network', status: 'FAILED' });
  });

  it('refuses an answer in another contributor’s name, and a connector nobody registered, as failures', async () => {
    const id = await start(
      [
        { connectorId: 'liar', phase: 'OID4VCI_START', required: false },
        { connectorId: 'unknown', phase: 'OID4VCI_START', required: false },
      ],
      ['given_name'],
    );
    await port.advance('alpha', id, 'OID4VCI_START');
    const list = await invocations(id);
    expect(list.map((i) => [i.connector_id, i.status, i.last_error_kind]).sort()).toEqual([
      ['liar', 'failed', 'invalid_answer'],
      ['unknown', 'failed', 'unregistered'],
    ]);
    const bag = await bed.call('GET', `/sessions/${id}/attributes`, { token: bed.tokens.supportA });
    expect(bag.body.attributes).toEqual([]);
    expect(bag.body.contributors).not.toHaveProperty('registry');
  });

  it('gives up on a connector past its timeout after the retries, and never calls a private address not allowed', async () => {
    const id = await start(
      [
        { connectorId: 'hang', phase: 'OID4VCI_START', required: false },
        { connectorId: 'private', phase: 'OID4VCI_START', required: false },
      ],
      ['given_name'],
    );
    await port.advance('alpha', id, 'OID4VCI_START');
    await port.settled();
    const list = await invocations(id);
    expect(list.find((i) => i.connector_id === 'hang')).toMatchObject({
      status: 'failed',
      attempts: 3,
      last_error_kind: 'timeout',
    });
    // Refused by the address rules: not retried, nothing sent, nothing contributed.
    expect(list.find((i) => i.connector_id === 'private')).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_error_kind: 'refused',
    });
    expect(servers.private!.received).toHaveLength(0);
    const bag = await bed.call('GET', `/sessions/${id}/attributes`, { token: bed.tokens.supportA });
    expect(bag.body.attributes).toEqual([]);
    expect(bag.body.status).toBe('IN_PROGRESS');
  });

  it('answers when the wait window passes, and applies a slow synchronous answer when it arrives', async () => {
    let answer!: () => void;
    const latch = new Promise<void>((resolve) => (answer = resolve));
    const slow = await startConnector('slow', async (inv) => {
      await latch;
      return answerWith({ given_name: 'Late' })(inv);
    });
    try {
      const windowed: IssuanceConfig = structuredClone(config);
      windowed.connectors.push({
        tenantId: 'alpha',
        connectorId: 'slow',
        url: slow.url,
        secret: slow.secret,
        timeoutMs: 5000,
      });
      windowed.connectorCalls.allowPrivateOrigins.push(slow.origin);
      windowed.connectorCalls.syncWaitWindowMs = 0;
      const quick = createIssuanceSessions(bed.t.platform, windowed);
      const id = await start([{ connectorId: 'slow', phase: 'OID4VCI_START' }], ['given_name']);
      // The window has passed before the answer: the caller sees the session still gathering, and defers.
      expect((await quick.advance('alpha', id, 'OID4VCI_START')).status).toBe('IN_PROGRESS');
      await quick.markDeferred('alpha', id);
      answer();
      await quick.settled();
      expect((await quick.get('alpha', id))?.status).toBe('READY');
      const metrics = await bed.t.platform.metrics.registry.metrics();
      expect(metrics).toMatch(/issuance_deferrals_total \d+/);
      expect(metrics).toMatch(/issuance_phase_duration_seconds_count\{phase="OID4VCI_START"\} \d+/);
      expect(metrics).toMatch(/issuance_connector_duration_seconds_count\{connector="slow",outcome="200"\} 1/);
      expect(metrics).toMatch(/issuance_connector_failures_total\{connector="gone",kind="network"\} \d+/);
    } finally {
      await slow.close();
    }
  });
});
