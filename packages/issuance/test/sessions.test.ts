import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { startIssuanceBed, unique, type IssuanceBed } from './support/bed.js';

/**
 * Sessions of the pipeline backend (001 §2.2, §3, §4.2): init, contributions into the sealed bag, the narrow
 * attribute read, completeness, review and contributor failures, with their audit events.
 */
describe.each(DATABASE_KINDS)('pipeline sessions (%s)', (kind) => {
  let bed: IssuanceBed;
  beforeAll(async () => {
    bed = await startIssuanceBed(kind);
  }, 120_000);
  afterAll(async () => bed?.close());

  const pipeline = (manualApproval = false) => ({
    pipelineId: unique('pipe'),
    manualApproval,
    invocationBindings: [
      { connectorId: 'kyc', phase: 'OID4VCI_START', required: true },
      { connectorId: 'extras', phase: 'OID4VCI_START', required: false, mode: 'DEFERRABLE' },
    ],
    claimsBindings: [
      {
        credentialConfigurationId: 'pid',
        claims: [
          { attributePath: 'person.given_name', claimPath: 'given_name' },
          { attributePath: 'person.family_name', claimPath: 'family_name' },
          { attributePath: 'person.nickname', required: false },
        ],
      },
    ],
  });

  const start = async (body: Record<string, unknown> = {}, manualApproval = false) => {
    const res = await bed.call('POST', '/sessions', {
      body: { pipeline_configuration: pipeline(manualApproval), ...body },
    });
    expect(res.status).toBe(200);
    return res.body.correlation_id as string;
  };

  const group = (contributorId: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    contributorId,
    phase: 'OID4VCI_START',
    attributes: Object.entries(attributes).map(([path, value]) => ({ path, value })),
    ...extra,
  });

  describe('init', () => {
    it('answers 200 with a generated correlation id, status, phase, mode and expiry', async () => {
      const res = await bed.call('POST', '/sessions', { body: { pipeline_configuration: pipeline() } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        correlation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: 'IN_PROGRESS',
        phase: 'OID4VCI_START',
        completed_phases: [],
        encryption_mode: 'TENANT_ENVELOPE',
      });
      const ttl = Date.parse(res.body.expires_at) - Date.now();
      expect(ttl).toBeGreaterThan(3000_000);
      expect(ttl).toBeLessThanOrEqual(3600_000);
    });

    it('takes a stored pipeline by id, and refuses an unknown one', async () => {
      const stored = pipeline();
      expect((await bed.call('POST', '/pipelines', { body: stored })).status).toBe(201);
      const res = await bed.call('POST', '/sessions', { body: { pipeline_configuration: stored.pipelineId } });
      expect(res.status).toBe(200);
      expect(res.body.pipeline_id).toBe(stored.pipelineId);
      const unknown = await bed.call('POST', '/sessions', { body: { pipeline_configuration: unique('none') } });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field: 'pipeline_configuration' });
      // Another tenant's stored pipeline does not exist for beta.
      const foreign = await bed.call('POST', '/sessions', {
        body: { pipeline_configuration: stored.pipelineId },
        token: bed.tokens.adminB,
      });
      expect(foreign.status).toBe(400);
    });

    it('keeps correlation ids unique per tenant: 409 on reuse, free in another tenant', async () => {
      const correlation = unique('corr');
      await start({ correlation_id: correlation });
      const again = await bed.call('POST', '/sessions', {
        body: { pipeline_configuration: pipeline(), correlation_id: correlation },
      });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ code: 'ALREADY_EXISTS_ERROR', field: 'correlation_id' });
      const beta = await bed.call('POST', '/sessions', {
        body: { pipeline_configuration: pipeline(), correlation_id: correlation },
        token: bed.tokens.adminB,
      });
      expect(beta.status).toBe(200);
    });

    it('bounds ttl_seconds to [60, 604800] and refuses malformed bodies with 400', async () => {
      for (const ttl of [59, 604_801, 0, -5]) {
        const res = await bed.call('POST', '/sessions', {
          body: { pipeline_configuration: pipeline(), ttl_seconds: ttl },
        });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field: 'ttl_seconds' });
      }
      const ok = await bed.call('POST', '/sessions', { body: { pipeline_configuration: pipeline(), ttl_seconds: 60 } });
      expect(ok.status).toBe(200);
      expect((await bed.call('POST', '/sessions', { body: {} })).status).toBe(400);
      expect((await bed.call('POST', '/sessions', { body: { pipeline_configuration: pipeline(), x: 1 } })).status).toBe(
        400,
      );
      const badMode = await bed.call('POST', '/sessions', {
        body: { pipeline_configuration: pipeline(), encryption_mode: 'ROT13' },
      });
      expect(badMode.status).toBe(400);
      const badId = await bed.call('POST', '/sessions', {
        body: { pipeline_configuration: pipeline(), correlation_id: 'a/b' },
      });
      expect(badId.status).toBe(400);
    });

    it('requires the expected initial connector fields, and keeps initial attributes in the bag', async () => {
      const p = { ...pipeline(), expectedInitialConnectorFields: ['ticket'] };
      const missing = await bed.call('POST', '/sessions', { body: { pipeline_configuration: p } });
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ field: 'initial_connector_fields' });
      const res = await bed.call('POST', '/sessions', {
        body: {
          pipeline_configuration: p,
          initial_connector_fields: { ticket: 'T-secret-1' },
          initial_attributes: [{ path: 'person.given_name', value: 'Initial-Ada' }],
        },
      });
      expect(res.status).toBe(200);
      const read = await bed.call('GET', `/sessions/${res.body.correlation_id}/attributes`, {
        token: bed.tokens.supportA,
      });
      expect(read.body.attributes).toMatchObject([
        { path: 'person.given_name', value: 'Initial-Ada', contributor_id: 'session-init', phase: 'OID4VCI_START' },
      ]);
      expect(read.body.connector_field_names).toEqual(['ticket']);
      expect(read.text).not.toContain('T-secret-1');
    });

    it('is for tenant administrators', async () => {
      const res = await bed.call('POST', '/sessions', {
        body: { pipeline_configuration: pipeline() },
        token: bed.tokens.readerA,
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'POLICY_DENIED' });
    });
  });

  describe('contributions and the attribute bag', () => {
    it('seals values at rest, reads them back with provenance, and never returns connector field values', async () => {
      const correlation = await start();
      const secret = `Secret-${unique('value')}`;
      const field = `Field-${unique('value')}`;
      const res = await bed.call('POST', `/sessions/${correlation}/attributes`, {
        body: {
          groups: [
            group(
              'kyc',
              { 'person.given_name': secret },
              {
                connectorFields: { caseNumber: field },
                semanticAttributeSets: [
                  { bundleId: 'person.v1', values: { 'person.family_name': { nested: secret } } },
                ],
              },
            ),
          ],
        },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        correlation_id: correlation,
        status: 'READY',
        accepted_attributes: 2,
        accepted_connector_fields: 1,
      });

      const stored = await bed.superuser(
        `SELECT a.value FROM issuance_session_attributes a JOIN issuance_sessions s ON s.id = a.session_id
          WHERE s.correlation_id = $1`,
        [correlation],
      );
      expect(stored).toHaveLength(2);
      const fields = await bed.superuser(
        `SELECT f.name, f.value FROM issuance_session_connector_fields f JOIN issuance_sessions s ON s.id = f.session_id
          WHERE s.correlation_id = $1`,
        [correlation],
      );
      expect(fields).toHaveLength(1);
      const rawAll = JSON.stringify(
        await bed
          .superuser(`SELECT * FROM issuance_session_attributes`)
          .then(async (a) => [
            a,
            await bed.superuser(`SELECT * FROM issuance_session_connector_fields`),
            await bed.superuser(`SELECT * FROM issuance_sessions`),
          ]),
      );
      expect(rawAll).not.toContain(secret);
      expect(rawAll).not.toContain(field);

      const read = await bed.call('GET', `/sessions/${correlation}/attributes`, { token: bed.tokens.supportA });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({
        correlation_id: correlation,
        status: 'READY',
        completed_phases: [],
        contributors: { kyc: 'CONTRIBUTED' },
        deferrals: [{ contributor_id: 'extras', phase: 'OID4VCI_START', required: false }],
        connector_field_names: ['caseNumber'],
        failure: null,
      });
      const byPath = Object.fromEntries(read.body.attributes.map((a: { path: string }) => [a.path, a])) as Record<
        string,
        Record<string, unknown>
      >;
      expect(byPath['person.given_name']).toMatchObject({ value: secret, contributor_id: 'kyc', bundle_id: null });
      expect(byPath['person.family_name']).toMatchObject({ value: { nested: secret }, bundle_id: 'person.v1' });
      expect(read.text).not.toContain(field);
    });

    it('keeps values in clear only in encryption mode NONE (allowed outside production)', async () => {
      const correlation = await start({ encryption_mode: 'NONE' });
      const value = `Clear-${unique('v')}`;
      await bed.call('POST', `/sessions/${correlation}/attributes`, { body: { groups: [group('kyc', { a: value })] } });
      const stored = await bed.superuser(
        `SELECT a.value FROM issuance_session_attributes a JOIN issuance_sessions s ON s.id = a.session_id
          WHERE s.correlation_id = $1`,
        [correlation],
      );
      expect(stored).toEqual([{ value: JSON.stringify(value) }]);
      const read = await bed.call('GET', `/sessions/${correlation}/attributes`, { token: bed.tokens.supportA });
      expect(read.body.attributes[0].value).toBe(value);
    });

    it('reads the bag only for the support or audit roles, and audits each read without values', async () => {
      const correlation = await start();
      const value = `Audit-${unique('v')}`;
      await bed.call('POST', `/sessions/${correlation}/attributes`, {
        body: { groups: [group('kyc', { 'person.given_name': value })] },
      });
      for (const token of [bed.tokens.readerA, bed.tokens.adminA]) {
        const denied = await bed.call('GET', `/sessions/${correlation}/attributes`, { token });
        expect(denied.status).toBe(403);
        expect(denied.body).toMatchObject({ code: 'POLICY_DENIED' });
      }
      expect(
        (await bed.call('GET', `/sessions/${correlation}/attributes`, { token: bed.tokens.supportA })).status,
      ).toBe(200);
      const events = await bed.superuser(
        `SELECT command_id, result, business_ids, details FROM audit_events
          WHERE tenant_id = 'alpha' AND command_id LIKE 'issuance.pipeline.%' AND business_ids::text LIKE $1
          ORDER BY seq`,
        [`%${correlation}%`],
      );
      expect(events.map((e) => [e.command_id, e.result])).toEqual([
        ['issuance.pipeline.init-session', 'success'],
        ['issuance.pipeline.contribute-attributes', 'success'],
        ['issuance.pipeline.get-session-attributes', 'success'],
      ]);
      const denials = await bed.superuser(
        `SELECT count(*)::int AS n FROM audit_events
          WHERE tenant_id = 'alpha' AND command_id = 'issuance.pipeline.get-session-attributes' AND result = 'denied'`,
      );
      expect(denials[0]!.n).toBeGreaterThanOrEqual(2);
      const allAudit = JSON.stringify(await bed.superuser(`SELECT * FROM audit_events`));
      expect(allAudit).not.toContain(value);
    });

    it('refuses a bad phase, an unknown session (404) and another tenant’s session (404)', async () => {
      const correlation = await start();
      const badPhase = await bed.call('POST', `/sessions/${correlation}/attributes`, {
        body: { groups: [{ contributorId: 'kyc', phase: 'LATER', attributes: [] }] },
      });
      expect(badPhase.status).toBe(400);
      expect(badPhase.body).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR' });
      expect((await bed.call('POST', `/sessions/${correlation}/attributes`, { body: { groups: [] } })).status).toBe(
        400,
      );
      const missing = await bed.call('POST', `/sessions/${unique('none')}/attributes`, {
        body: { groups: [group('kyc', { a: 1 })] },
      });
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ code: 'NOT_FOUND_ERROR' });
      const foreign = await bed.call('POST', `/sessions/${correlation}/attributes`, {
        body: { groups: [group('kyc', { a: 1 })] },
        token: bed.tokens.adminB,
      });
      expect(foreign.status).toBe(404);
      expect(
        (await bed.call('GET', `/sessions/${correlation}/completeness`, { token: bed.tokens.adminB })).status,
      ).toBe(404);
      const rows = await bed.superuser(
        `SELECT count(*)::int AS n FROM issuance_session_attributes a JOIN issuance_sessions s ON s.id = a.session_id
          WHERE s.correlation_id = $1`,
        [correlation],
      );
      expect(rows[0]!.n).toBe(0);
    });

    it('loses no attribute when many contributions reach one session at once', async () => {
      const correlation = await start();
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          bed.call('POST', `/sessions/${correlation}/attributes`, {
            body: { groups: [group(`c${i}`, { [`p.${i}.a`]: i, [`p.${i}.b`]: `v${i}` })] },
          }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
      const read = await bed.call('GET', `/sessions/${correlation}/attributes`, { token: bed.tokens.supportA });
      expect(read.body.attributes).toHaveLength(24);
      expect(Object.keys(read.body.contributors).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `c${i}`).sort());
    });
  });

  describe('completeness, review and failures', () => {
    it('flips completeness when the last required claim arrives; optional claims are never missing', async () => {
      const correlation = await start();
      const before = await bed.call('GET', `/sessions/${correlation}/completeness`, { token: bed.tokens.readerA });
      expect(before.status).toBe(200);
      expect(before.body).toEqual({
        correlation_id: correlation,
        status: 'IN_PROGRESS',
        complete: false,
        credentials: [
          {
            credential_configuration_id: 'pid',
            complete: false,
            deferrable: false,
            missing_claims: ['given_name', 'family_name'],
          },
        ],
      });
      await bed.call('POST', `/sessions/${correlation}/attributes`, {
        body: { groups: [group('kyc', { 'person.given_name': 'Ada' })] },
      });
      const half = await bed.call('GET', `/sessions/${correlation}/completeness`);
      expect(half.body.credentials[0].missing_claims).toEqual(['family_name']);
      expect(half.body.status).toBe('IN_PROGRESS');
      await bed.call('POST', `/sessions/${correlation}/attributes`, {
        body: { groups: [group('extras', { 'person.family_name': 'Lovelace' })] },
      });
      const done = await bed.call('GET', `/sessions/${correlation}/completeness`);
      expect(done.body).toMatchObject({ complete: true, status: 'READY' });
      expect(done.body.credentials[0]).toMatchObject({ complete: true, missing_claims: [] });
    });

    it('approves or rejects only a session awaiting review; anything else is 409', async () => {
      const correlation = await start({}, true);
      const early = await bed.call('POST', `/sessions/${correlation}/approve`, { body: { decision: 'APPROVED' } });
      expect(early.status).toBe(409);
      expect(early.body).toMatchObject({ code: 'CONFLICT_ERROR' });
      await bed.call('POST', `/sessions/${correlation}/attributes`, {
        body: { groups: [group('kyc', { 'person.given_name': 'Ada', 'person.family_name': 'Lovelace' })] },
      });
      expect((await bed.call('GET', `/sessions/${correlation}/completeness`)).body.status).toBe('AWAITING_REVIEW');
      // Nothing changes under review.
      const during = await bed.call('POST', `/sessions/${correlation}/attributes`, {
        body: { groups: [group('extras', { x: 1 })] },
      });
      expect(during.status).toBe(409);
      // The refused contribution wrote nothing (its rows go in with the lock; the refusal rolls them back).
      const written = await bed.superuser(
        `SELECT count(*)::int AS n FROM issuance_session_attributes a JOIN issuance_sessions s ON s.id = a.session_id
          WHERE s.correlation_id = $1 AND a.path = 'x'`,
        [correlation],
      );
      expect(written).toEqual([{ n: 0 }]);
      const byReader = await bed.call('POST', `/sessions/${correlation}/approve`, {
        body: { decision: 'APPROVED' },
        token: bed.tokens.readerA,
      });
      expect(byReader.status).toBe(403);
      const approved = await bed.call('POST', `/sessions/${correlation}/approve`, { body: { decision: 'APPROVED' } });
      expect(approved.status).toBe(200);
      expect(approved.body.status).toBe('READY');
      expect(
        (await bed.call('POST', `/sessions/${correlation}/approve`, { body: { decision: 'REJECTED' } })).status,
      ).toBe(409);
      expect((await bed.call('POST', `/sessions/${correlation}/approve`, { body: { decision: 'MAYBE' } })).status).toBe(
        400,
      );

      const other = await start({}, true);
      await bed.call('POST', `/sessions/${other}/attributes`, {
        body: { groups: [group('kyc', { 'person.given_name': 'A', 'person.family_name': 'B' })] },
      });
      const rejected = await bed.call('POST', `/sessions/${other}/approve`, {
        body: { decision: 'REJECTED', reason: 'document unreadable' },
      });
      expect(rejected.body.status).toBe('FAILED');
      const read = await bed.call('GET', `/sessions/${other}/attributes`, { token: bed.tokens.supportA });
      expect(read.body.failure).toEqual({ kind: 'REJECTED', reason: 'document unreadable' });
      expect(
        (await bed.call('POST', `/sessions/${other}/attributes`, { body: { groups: [group('kyc', { z: 1 })] } }))
          .status,
      ).toBe(409);
    });

    it('an optional contributor failure lets the session go on; a required one fails it', async () => {
      const correlation = await start();
      const optional = await bed.call('POST', `/sessions/${correlation}/fail`, {
        body: { contributor_id: 'extras', reason: 'timeout' },
      });
      expect(optional.status).toBe(200);
      expect(optional.body).toMatchObject({ status: 'IN_PROGRESS', contributor_required: false });
      expect(
        (
          await bed.call('POST', `/sessions/${correlation}/fail`, {
            body: { contributor_id: 'extras', reason: 'again' },
          })
        ).status,
      ).toBe(409);
      const unbound = await bed.call('POST', `/sessions/${correlation}/fail`, {
        body: { contributor_id: 'stranger', reason: 'x' },
      });
      expect(unbound.status).toBe(400);
      expect(unbound.body).toMatchObject({ field: 'contributor_id' });
      expect(
        (await bed.call('POST', `/sessions/${correlation}/fail`, { body: { contributor_id: 'kyc' } })).status,
      ).toBe(400);
      const required = await bed.call('POST', `/sessions/${correlation}/fail`, {
        body: { contributor_id: 'kyc', reason: 'registry down' },
      });
      expect(required.body).toMatchObject({ status: 'FAILED', contributor_required: true });
      const read = await bed.call('GET', `/sessions/${correlation}/attributes`, { token: bed.tokens.supportA });
      expect(read.body).toMatchObject({
        status: 'FAILED',
        contributors: { extras: 'RELEASED', kyc: 'FAILED' },
        completed_phases: ['OID4VCI_START'],
        failure: { kind: 'CONTRIBUTOR_FAILED', contributor_id: 'kyc', reason: 'registry down' },
      });
      const events = await bed.superuser(
        `SELECT details::text AS d, business_ids::text AS b FROM audit_events
          WHERE command_id = 'issuance.pipeline.record-contributor-failure' AND business_ids::text LIKE $1`,
        [`%${correlation}%`],
      );
      // Four executions (the body without a reason never reaches the command): two successes, two refusals.
      expect(events.length).toBe(4);
      expect(JSON.stringify(events)).not.toContain('registry down');
    });
  });
});
