import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '@tessera/platform';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { createIssuanceSessions, type IssuanceSessions } from '../src/index.js';
import { startIssuanceBed, TEST_CONFIG, unique, type IssuanceBed } from './support/bed.js';

const admin = (tenantId: string, roles = ['tenant-admin']): Principal => ({
  id: 'offer-admin',
  kind: 'user',
  tenantId,
  roles,
  scopes: [],
  clientId: null,
  issuer: null,
});

/**
 * The session port of the wallet-facing issuer (contract D): the same commands and state machine as the HTTP
 * endpoints, audited, on both engines.
 */
describe.each(DATABASE_KINDS)('session port (%s)', (kind) => {
  let bed: IssuanceBed;
  let port: IssuanceSessions;
  beforeAll(async () => {
    bed = await startIssuanceBed(kind);
    port = createIssuanceSessions(bed.t.platform, TEST_CONFIG);
  }, 120_000);
  afterAll(async () => bed?.close());

  const pipeline = (extra: Record<string, unknown> = {}) => ({
    pipelineId: unique('pipe'),
    claimsBindings: [
      {
        credentialConfigurationId: 'pid',
        deferrable: true,
        claims: [
          { attributePath: 'person.given_name', claimPath: 'given_name' },
          { attributePath: 'person.town', claimPath: 'address.locality' },
          { attributePath: 'person.nickname', claimPath: 'nickname', required: false },
        ],
      },
    ],
    ...extra,
  });

  const contribute = (correlationId: string, attributes: Record<string, unknown>, phase = 'OID4VCI_START') =>
    bed.call('POST', `/sessions/${correlationId}/attributes`, {
      body: {
        groups: [
          {
            contributorId: 'registry',
            phase,
            attributes: Object.entries(attributes).map(([path, value]) => ({ path, value })),
          },
        ],
      },
    });

  it('starts a session with the init command: same policy, validation and audit as POST /sessions', async () => {
    const correlationId = unique('offer');
    const view = await port.startSession('alpha', admin('alpha'), {
      pipeline_configuration: pipeline(),
      correlation_id: correlationId,
    });
    expect(view).toMatchObject({ correlation_id: correlationId, status: 'IN_PROGRESS', phase: 'OID4VCI_START' });
    await expect(
      port.startSession('alpha', admin('alpha'), { pipeline_configuration: pipeline(), correlation_id: correlationId }),
    ).rejects.toMatchObject({ code: 'already_exists' });
    await expect(
      port.startSession('alpha', admin('alpha', []), { pipeline_configuration: pipeline() }),
    ).rejects.toMatchObject({ code: 'policy_denied' });
    await expect(
      port.startSession('alpha', admin('alpha'), { pipeline_configuration: pipeline(), ttl_seconds: 5 }),
    ).rejects.toMatchObject({ code: 'invalid_request', field: 'ttl_seconds' });
    const audit = await bed.superuser(
      `SELECT result FROM audit_events WHERE command_id = 'issuance.pipeline.init-session' AND correlation_id = $1`,
      [correlationId],
    );
    expect(audit.map((a) => a.result).sort()).toEqual(['failure', 'success']);
  });

  it('advances through the phases forward only, and answers the session as it stands', async () => {
    const { correlation_id: id } = await port.startSession('alpha', admin('alpha'), {
      pipeline_configuration: pipeline(),
    });
    const token = await port.advance('alpha', id, 'OID4VCI_TOKEN');
    expect(token.phase).toBe('OID4VCI_TOKEN');
    expect(token.completed_phases).toEqual(['OID4VCI_START', 'OID4VCI_AUTHORIZATION', 'OID4VCI_PRE_AUTHORIZED']);
    // An earlier phase does not move it back.
    expect((await port.advance('alpha', id, 'OID4VCI_START')).phase).toBe('OID4VCI_TOKEN');
    expect((await port.get('alpha', id))?.phase).toBe('OID4VCI_TOKEN');
    const audit = await bed.superuser(
      `SELECT business_ids->>'phase' AS phase FROM audit_events
        WHERE command_id = 'issuance.pipeline.advance-session' AND correlation_id = $1 ORDER BY occurred_at`,
      [id],
    );
    expect(audit.map((a) => a.phase)).toEqual(['OID4VCI_TOKEN', 'OID4VCI_START']);
  });

  it('builds the claims of a configuration once complete: claim paths nested, latest value per path', async () => {
    const { correlation_id: id } = await port.startSession('alpha', admin('alpha'), {
      pipeline_configuration: pipeline(),
      initial_attributes: [{ path: 'person.given_name', value: 'Ada' }],
    });
    expect(await port.claimsFor('alpha', id, 'pid')).toEqual({
      complete: false,
      missing: ['address.locality'],
      deferrable: true,
      status: 'IN_PROGRESS',
    });
    await port.markDeferred('alpha', id);
    await port.markDeferred('alpha', id); // asked again: stays deferred
    expect((await port.get('alpha', id))?.status).toBe('DEFERRED');
    expect((await contribute(id, { 'person.given_name': 'Augusta', 'person.town': 'London' })).status).toBe(200);
    expect((await port.get('alpha', id))?.status).toBe('READY');
    expect(await port.claimsFor('alpha', id, 'pid')).toEqual({
      complete: true,
      claims: { given_name: 'Augusta', address: { locality: 'London' } },
    });
    await expect(port.claimsFor('alpha', id, 'nope')).rejects.toMatchObject({
      code: 'invalid_request',
      field: 'credentialConfigurationId',
    });
    await port.markIssued('alpha', id, 'pid');
    expect((await port.get('alpha', id))?.status).toBe('ISSUED');
    await port.markIssued('alpha', id, 'pid');
    // Claims of an issued session remain readable (a second credential of the same configuration).
    expect((await port.claimsFor('alpha', id, 'pid')).complete).toBe(true);
    await port.recordNotification('alpha', id, 'credential_accepted');
    const after = await port.get('alpha', id);
    expect(after).toMatchObject({ status: 'ISSUED', phase: 'OID4VCI_NOTIFICATION_RECEIPT' });
    const audit = await bed.superuser(
      `SELECT command_id, business_ids FROM audit_events WHERE correlation_id = $1 AND command_id IN
        ('issuance.pipeline.mark-issued', 'issuance.pipeline.record-notification', 'issuance.pipeline.build-claims')`,
      [id],
    );
    expect(audit.filter((a) => a.command_id === 'issuance.pipeline.mark-issued')).toHaveLength(2);
    expect(audit.find((a) => a.command_id === 'issuance.pipeline.record-notification')?.business_ids).toMatchObject({
      event: 'credential_accepted',
    });
    // The audit holds identifiers, never a claim value.
    expect(JSON.stringify(audit)).not.toContain('London');
  });

  it('refuses moves the state machine refuses (409) and waits for a reviewer', async () => {
    const { correlation_id: id } = await port.startSession('alpha', admin('alpha'), {
      pipeline_configuration: pipeline({ manualApproval: true }),
    });
    await expect(port.markIssued('alpha', id, 'pid')).rejects.toMatchObject({ code: 'conflict' });
    await contribute(id, { 'person.given_name': 'Ada', 'person.town': 'London' });
    expect(await port.claimsFor('alpha', id, 'pid')).toEqual({
      complete: false,
      missing: [],
      deferrable: true,
      status: 'AWAITING_REVIEW',
    });
    await expect(port.markDeferred('alpha', id)).rejects.toMatchObject({ code: 'conflict' });
    // Under review the phase does not move; the caller reads the status.
    expect(await port.advance('alpha', id, 'OID4VCI_CREDENTIAL_REQUEST')).toMatchObject({
      status: 'AWAITING_REVIEW',
      phase: 'OID4VCI_START',
    });
    expect((await bed.call('POST', `/sessions/${id}/approve`, { body: { decision: 'APPROVED' } })).status).toBe(200);
    expect((await port.claimsFor('alpha', id, 'pid')).complete).toBe(true);
  });

  it('answers null from get and not found from the others for unknown, expired or foreign sessions', async () => {
    const { correlation_id: id } = await port.startSession('alpha', admin('alpha'), {
      pipeline_configuration: pipeline(),
    });
    expect(await port.get('beta', id)).toBeNull();
    expect(await port.get('alpha', unique('none'))).toBeNull();
    const notFound = { code: 'not_found' };
    await expect(port.advance('beta', id, 'OID4VCI_TOKEN')).rejects.toMatchObject(notFound);
    await expect(port.claimsFor('beta', id, 'pid')).rejects.toMatchObject(notFound);
    await expect(port.markDeferred('beta', id)).rejects.toMatchObject(notFound);
    await expect(port.markIssued('beta', id, 'pid')).rejects.toMatchObject(notFound);
    await expect(port.recordNotification('beta', id, 'credential_deleted')).rejects.toMatchObject(notFound);
    await bed.superuser(
      `UPDATE issuance_sessions SET expires_at = now() - interval '1 second' WHERE correlation_id = $1`,
      [id],
    );
    expect(await port.get('alpha', id)).toBeNull();
    await expect(port.advance('alpha', id, 'OID4VCI_TOKEN')).rejects.toMatchObject(notFound);
  });
});
