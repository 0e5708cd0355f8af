import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, refuseAuditStaging } from '@tessera/platform/testing';
import type { IssuanceConfig } from '../src/config.js';
import {
  ADVANCE_SESSION,
  CLAIM_INVOCATIONS,
  CONTRIBUTE_ATTRIBUTES,
  CONTRIBUTE_VIA_CALLBACK,
  MARK_DEFERRED,
  RECORD_INVOCATION_OUTCOME,
} from '../src/commands/ids.js';
import { createIssuanceSessions, issueCallbackToken, type IssuanceSessionsPort } from '../src/index.js';
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
 * Issue 13 §7 for the pipeline: contributions (by a contributor, by callback, by a connector's answer), the session
 * moves of the session port, and the connector bookkeeping (the claim of the invocations, each outcome) commit with
 * their audit event. When the event cannot be staged, the command answers 503 and the session, its bag, its
 * invocations and the callback token are as they were: the caller's retry then succeeds.
 */
describe.each(DATABASE_KINDS)('pipeline writes and their audit events (%s)', (kind) => {
  let bed: IssuanceBed;
  let port: IssuanceSessionsPort;
  let registry: TestConnector;
  const config: IssuanceConfig = structuredClone(TEST_CONFIG);

  beforeAll(async () => {
    registry = await startConnector('registry', answerWith({ given_name: 'Ada' }));
    config.connectors = [
      { tenantId: 'alpha', connectorId: 'registry', url: registry.url, secret: registry.secret, timeoutMs: 5000 },
    ];
    config.connectorCalls = { ...config.connectorCalls, allowPrivateOrigins: [registry.origin] };
    bed = await startIssuanceBed(kind, config);
    await bed.app.listen({ port: 0, host: '127.0.0.1' });
    config.connectorCalls.callbackBaseUrl = `http://127.0.0.1:${(bed.app.server.address() as AddressInfo).port}`;
    port = createIssuanceSessions(bed.t.platform, config);
  }, 120_000);
  afterAll(async () => {
    await port?.settled();
    await bed?.close();
    await registry?.close();
  });

  const start = async (invocationBindings: unknown[] = []) =>
    (
      await port.startSession('alpha', admin, {
        pipeline_configuration: {
          pipelineId: unique('pipe'),
          invocationBindings: invocationBindings as never,
          claimsBindings: [
            { credentialConfigurationId: 'pid', deferrable: true, claims: [{ attributePath: 'given_name' }] },
          ],
        },
      })
    ).correlation_id;
  /** What the session is in the tables: its row, its bag, its invocations, its spent callback tokens. */
  const sessionState = async (correlationId: string) =>
    bed.superuser(
      `SELECT s.status, s.state::text AS state, s.updated_at,
              (SELECT count(*)::int FROM issuance_session_attributes a
                WHERE a.tenant_id = s.tenant_id AND a.session_id = s.id) AS attributes,
              (SELECT count(*)::int FROM issuance_session_connector_fields f
                WHERE f.tenant_id = s.tenant_id AND f.session_id = s.id) AS fields,
              (SELECT string_agg(i.status || ':' || i.attempts, ',' ORDER BY i.connector_id)
                 FROM issuance_connector_invocations i
                WHERE i.tenant_id = s.tenant_id AND i.session_id = s.id) AS invocations,
              (SELECT count(*)::int FROM issuance_spent_callback_tokens t
                WHERE t.tenant_id = s.tenant_id AND t.correlation_id = s.correlation_id) AS spent
         FROM issuance_sessions s WHERE s.tenant_id = 'alpha' AND s.correlation_id = $1`,
      [correlationId],
    );
  const staged = async () => (await bed.superuser('SELECT count(*)::int AS n FROM audit_pending'))[0]!.n as number;
  /** The session's events of a command (a request's events carry the request's correlation id, not the session's). */
  const events = async (commandId: string, correlationId: string) =>
    (
      await bed.superuser(
        `SELECT result, business_ids AS "businessIds" FROM audit_events
          WHERE tenant_id = 'alpha' AND command_id = $1 AND business_ids->>'correlationId' = $2 ORDER BY seq`,
        [commandId, correlationId],
      )
    ).map((e) => e as { result: string; businessIds: Record<string, string> });
  const refusing = async <T>(commandId: string, work: () => Promise<T>): Promise<T> => {
    const lift = await refuseAuditStaging(bed.t.platform.db, commandId);
    try {
      return await work();
    } finally {
      await lift();
    }
  };
  const contribution = (phase = 'OID4VCI_START') => ({
    groups: [{ contributorId: 'registry', phase, attributes: [{ path: 'given_name', value: 'Ada' }] }],
  });

  it('a contribution whose event cannot be staged answers 503 and writes nothing; the retry contributes once', async () => {
    const id = await start([{ connectorId: 'registry', phase: 'OID4VCI_START' }]);
    const before = await sessionState(id);
    const refused = await refusing(CONTRIBUTE_ATTRIBUTES, () =>
      bed.call('POST', `/sessions/${id}/attributes`, { body: contribution() }),
    );
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(await sessionState(id)).toEqual(before);
    const retried = await bed.call('POST', `/sessions/${id}/attributes`, { body: contribution() });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ status: 'READY', accepted_attributes: 1 });
    await bed.t.platform.audit.whenIdle();
    expect(await staged()).toBe(0);
    expect((await events(CONTRIBUTE_ATTRIBUTES, id)).map((e) => e.result)).toEqual(['failure', 'success']);
    expect((await sessionState(id))[0]).toMatchObject({ status: 'READY', attributes: 1 });
  });

  it('a callback whose event cannot be staged leaves its token unspent: the connector retries with it', async () => {
    const id = await start([{ connectorId: 'registry', phase: 'OID4VCI_DEFERRED', mode: 'DEFERRABLE' }]);
    const { token } = await issueCallbackToken(
      bed.t.platform.keys,
      { tenantId: 'alpha', correlationId: id, contributorId: 'registry' },
      new Date(),
      900,
    );
    const callback = () =>
      bed.call('POST', `/sessions/${id}/callbacks/${token}`, { token: null, body: contribution('OID4VCI_DEFERRED') });
    const before = await sessionState(id);
    expect((await refusing(CONTRIBUTE_VIA_CALLBACK, callback)).status).toBe(503);
    expect(await sessionState(id)).toEqual(before);
    expect((await callback()).status).toBe(200);
    expect((await callback()).status).toBe(401);
    await bed.t.platform.audit.whenIdle();
    expect(await staged()).toBe(0);
    expect((await events(CONTRIBUTE_VIA_CALLBACK, id)).map((e) => e.result)).toEqual(['failure', 'success', 'failure']);
    expect((await sessionState(id))[0]).toMatchObject({ status: 'READY', attributes: 1, spent: 1 });
  });

  it('a session move of the port whose event cannot be staged fails and moves nothing', async () => {
    const id = await start();
    await port.advance('alpha', id, 'OID4VCI_START');
    const before = await sessionState(id);
    await expect(
      refusing(ADVANCE_SESSION, () => port.advance('alpha', id, 'OID4VCI_CREDENTIAL_REQUEST')),
    ).rejects.toMatchObject({
      code: 'service_unavailable',
    });
    await expect(refusing(MARK_DEFERRED, () => port.markDeferred('alpha', id))).rejects.toMatchObject({
      code: 'service_unavailable',
    });
    expect(await sessionState(id)).toEqual(before);
    await port.advance('alpha', id, 'OID4VCI_CREDENTIAL_REQUEST');
    await port.markDeferred('alpha', id);
    expect((await sessionState(id))[0]).toMatchObject({ status: 'DEFERRED' });
    await bed.t.platform.audit.whenIdle();
    expect(await staged()).toBe(0);
    expect((await events(MARK_DEFERRED, id)).map((e) => e.result)).toEqual(['failure', 'success']);
  });

  it('connector bookkeeping: a refused claim invokes nothing, a refused outcome keeps the claim; both retry cleanly', async () => {
    const id = await start([{ connectorId: 'registry', phase: 'OID4VCI_START' }]);
    const sent = () => registry.received.filter((r) => r.body.data.correlation_id === id).length;

    // The claim's event cannot be staged: no invocation row, no request sent.
    await expect(refusing(CLAIM_INVOCATIONS, () => port.advance('alpha', id, 'OID4VCI_START'))).rejects.toMatchObject({
      code: 'service_unavailable',
    });
    expect((await sessionState(id))[0]).toMatchObject({ invocations: null, attributes: 0 });
    expect(sent()).toBe(0);

    // The outcome's event cannot be staged: the claim stands (invoking), the connector's answer is not applied.
    await refusing(RECORD_INVOCATION_OUTCOME, async () => {
      await port.advance('alpha', id, 'OID4VCI_START');
      await port.settled();
    });
    expect(sent()).toBe(1);
    expect((await sessionState(id))[0]).toMatchObject({
      status: 'IN_PROGRESS',
      invocations: 'invoking:0',
      attributes: 0,
    });
    await bed.t.platform.audit.whenIdle();
    expect(await staged()).toBe(0);
    const claims = await events(CLAIM_INVOCATIONS, id);
    expect(claims.map((e) => e.result)).toEqual(['failure', 'success']);
    expect(claims[1]!.businessIds.invocationIds).toBe(registry.received.at(-1)!.body.data.invocation_id);
    expect((await events(RECORD_INVOCATION_OUTCOME, id)).map((e) => e.result)).toEqual(['failure']);

    // Past the lease, the claim is taken over and the answer applied with its event.
    await bed.superuser(
      `UPDATE issuance_connector_invocations SET updated_at = updated_at - interval '1 hour'
        WHERE tenant_id = 'alpha' AND session_id = (SELECT id FROM issuance_sessions WHERE correlation_id = $1)`,
      [id],
    );
    await port.advance('alpha', id, 'OID4VCI_START');
    await port.settled();
    expect((await sessionState(id))[0]).toMatchObject({ status: 'READY', invocations: 'contributed:1', attributes: 1 });
    await bed.t.platform.audit.whenIdle();
    expect(await staged()).toBe(0);
    expect((await events(RECORD_INVOCATION_OUTCOME, id)).map((e) => e.result)).toEqual(['failure', 'success']);
    expect(await bed.t.platform.audit.verify('alpha')).toMatchObject({ ok: true });
  });
});
