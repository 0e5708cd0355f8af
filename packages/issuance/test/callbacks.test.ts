import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { issueCallbackToken } from '../src/index.js';
import { startIssuanceBed, unique, type IssuanceBed } from './support/bed.js';

/**
 * The callback ingress (001 §4.2, §5): a capability token in the path instead of a bearer; forged, altered,
 * expired, replayed, cross-session and cross-contributor uses are refused with nothing written.
 */
describe.each(DATABASE_KINDS)('callback contributions (%s)', (kind) => {
  let bed: IssuanceBed;
  beforeAll(async () => {
    bed = await startIssuanceBed(kind);
  }, 120_000);
  afterAll(async () => bed?.close());

  const start = async (token = bed.tokens.adminA, correlationId?: string) => {
    const res = await bed.call('POST', '/sessions', {
      token,
      body: {
        ...(correlationId ? { correlation_id: correlationId } : {}),
        pipeline_configuration: {
          pipelineId: unique('pipe'),
          invocationBindings: [{ connectorId: 'registry', phase: 'OID4VCI_DEFERRED', mode: 'DEFERRABLE' }],
          claimsBindings: [{ credentialConfigurationId: 'pid', deferrable: true, claims: [{ attributePath: 'age' }] }],
        },
      },
    });
    expect(res.status).toBe(200);
    return res.body.correlation_id as string;
  };
  const tokenFor = async (
    correlationId: string,
    options: { tenantId?: string; contributorId?: string; at?: Date } = {},
  ) =>
    (
      await issueCallbackToken(
        bed.t.platform.keys,
        {
          tenantId: options.tenantId ?? 'alpha',
          correlationId,
          contributorId: options.contributorId ?? 'registry',
        },
        options.at ?? new Date(),
        900,
      )
    ).token;
  const body = (contributorId = 'registry', phase = 'OID4VCI_DEFERRED', value: unknown = 42) => ({
    groups: [{ contributorId, phase, attributes: [{ path: 'age', value }] }],
  });
  const callback = (correlationId: string, token: string, b: unknown = body()) =>
    bed.call('POST', `/sessions/${correlationId}/callbacks/${token}`, { token: null, body: b });
  const rows = async (correlationId: string, tenant = 'alpha') =>
    (
      await bed.superuser(
        `SELECT count(*)::int AS n FROM issuance_session_attributes a
           JOIN issuance_sessions s ON s.tenant_id = a.tenant_id AND s.id = a.session_id
          WHERE s.tenant_id = $1 AND s.correlation_id = $2`,
        [tenant, correlationId],
      )
    )[0]!.n as number;

  it('runs the contribution in the deferred phase without a bearer token, once', async () => {
    const correlation = await start();
    const token = await tokenFor(correlation);
    expect(token).toMatch(/^cb1\.1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const res = await callback(correlation, token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ correlation_id: correlation, status: 'READY', accepted_attributes: 1 });
    const read = await bed.call('GET', `/sessions/${correlation}/attributes`, { token: bed.tokens.supportA });
    expect(read.body.attributes).toMatchObject([
      { path: 'age', value: 42, contributor_id: 'registry', phase: 'OID4VCI_DEFERRED' },
    ]);
    expect(read.body.deferrals).toEqual([]);

    const replay = await callback(correlation, token, body('registry', 'OID4VCI_DEFERRED', 43));
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await rows(correlation)).toBe(1);

    const events = await bed.superuser(
      `SELECT result, principal_id FROM audit_events
        WHERE command_id = 'issuance.pipeline.contribute-via-callback' AND business_ids::text LIKE $1 ORDER BY seq`,
      [`%${correlation}%`],
    );
    expect(events).toEqual([
      { result: 'success', principal_id: 'callback:registry' },
      { result: 'failure', principal_id: 'callback:registry' },
    ]);
  });

  it('refuses a forged MAC, an altered payload, garbage and an expired token (401), writing nothing', async () => {
    const correlation = await start();
    const token = await tokenFor(correlation);
    const [prefix, version, payload, mac] = token.split('.') as [string, string, string, string];
    const flipped = `${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`;
    const altered = Buffer.from(
      Buffer.from(payload, 'base64url').toString('utf8').replace('"registry"', '"intruder"'),
    ).toString('base64url');
    const expired = await tokenFor(correlation, { at: new Date(Date.now() - 901_000) });
    for (const bad of [
      `${prefix}.${version}.${payload}.${flipped}`,
      `${prefix}.${version}.${altered}.${mac}`,
      `${prefix}.7.${payload}.${mac}`,
      'not-a-token',
      expired,
    ]) {
      const res = await callback(correlation, bad, body(bad.includes(altered) ? 'intruder' : 'registry'));
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    expect(await rows(correlation)).toBe(0);
    // The genuine token was never spent by those attempts.
    expect((await callback(correlation, token)).status).toBe(200);
  });

  it('refuses a token of another session (401), another contributor (403) and another phase (400), writing nothing', async () => {
    const first = await start();
    const second = await start();
    const token = await tokenFor(first);
    expect((await callback(second, token)).status).toBe(401);
    const otherContributor = await callback(first, token, body('someone-else'));
    expect(otherContributor.status).toBe(403);
    expect(otherContributor.body).toMatchObject({ code: 'POLICY_DENIED' });
    const otherPhase = await callback(first, token, body('registry', 'OID4VCI_CREDENTIAL_REQUEST'));
    expect(otherPhase.status).toBe(400);
    expect(otherPhase.body).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR' });
    expect(await rows(first)).toBe(0);
    expect(await rows(second)).toBe(0);
    const spent = await bed.superuser(
      `SELECT count(*)::int AS n FROM issuance_spent_callback_tokens WHERE correlation_id = $1`,
      [first],
    );
    expect(spent[0]!.n).toBe(0);
    expect((await callback(first, token)).status).toBe(200);
  });

  it('contributes in the token’s tenant only', async () => {
    const correlation = unique('shared');
    await start(bed.tokens.adminA, correlation);
    await start(bed.tokens.adminB, correlation);
    const betaToken = await tokenFor(correlation, { tenantId: 'beta' });
    expect((await callback(correlation, betaToken)).status).toBe(200);
    expect(await rows(correlation, 'beta')).toBe(1);
    expect(await rows(correlation, 'alpha')).toBe(0);
  });

  it('refuses a token for an unknown session (404) without spending it', async () => {
    const correlation = unique('none');
    const token = await tokenFor(correlation);
    const res = await callback(correlation, token);
    expect(res.status).toBe(404);
    const spent = await bed.superuser(
      `SELECT count(*)::int AS n FROM issuance_spent_callback_tokens WHERE correlation_id = $1`,
      [correlation],
    );
    expect(spent[0]!.n).toBe(0);
  });
});
