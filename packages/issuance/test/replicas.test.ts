import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIssuanceBed, unique, type IssuanceBed, type Replica } from './support/bed.js';

/**
 * Two processes of the issuance role on one PostgreSQL database (issue: "two replicas, contributions to one
 * session from both at once, no lost attribute"). Each has its own platform, pool and app; the master key is
 * shared, as in a deployment.
 */
describe('two replicas on one PostgreSQL database', () => {
  let bed: IssuanceBed;
  let second: Replica;
  beforeAll(async () => {
    bed = await startIssuanceBed('postgres');
    second = await bed.replica();
  }, 120_000);
  afterAll(async () => bed?.close());

  it('loses no attribute when both contribute to one session at once, and each reads what the other sealed', async () => {
    const init = await bed.call('POST', '/sessions', {
      body: {
        pipeline_configuration: {
          pipelineId: unique('pipe'),
          claimsBindings: [{ credentialConfigurationId: 'pid', claims: [{ attributePath: 'never' }] }],
        },
      },
    });
    expect(init.status).toBe(200);
    const correlation = init.body.correlation_id as string;
    const contribute = (replica: Replica, name: string, i: number) =>
      replica.call('POST', `/sessions/${correlation}/attributes`, {
        body: {
          groups: [
            {
              contributorId: `${name}-${i}`,
              phase: 'OID4VCI_START',
              attributes: Array.from({ length: 5 }, (_, k) => ({
                path: `${name}.${i}.${k}`,
                value: `${name}${i}${k}`,
              })),
            },
          ],
        },
      });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => [contribute(bed, 'one', i), contribute(second, 'two', i)]).flat(),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));

    for (const replica of [bed, second]) {
      const read = await replica.call('GET', `/sessions/${correlation}/attributes`, { token: bed.tokens.supportA });
      expect(read.status).toBe(200);
      expect(read.body.attributes).toHaveLength(100);
      const paths = new Set(read.body.attributes.map((a: { path: string }) => a.path));
      expect(paths.size).toBe(100);
      expect(Object.keys(read.body.contributors)).toHaveLength(20);
    }
  });

  const twoClaimSession = async (manualApproval: boolean) => {
    const init = await bed.call('POST', '/sessions', {
      body: {
        pipeline_configuration: {
          pipelineId: unique('pipe'),
          manualApproval,
          claimsBindings: [
            { credentialConfigurationId: 'pid', claims: [{ attributePath: 'given' }, { attributePath: 'family' }] },
          ],
        },
      },
    });
    expect(init.status).toBe(200);
    return init.body.correlation_id as string;
  };
  const contributePath = (replica: Replica, correlation: string, contributorId: string, path: string) =>
    replica.call('POST', `/sessions/${correlation}/attributes`, {
      body: { groups: [{ contributorId, phase: 'OID4VCI_START', attributes: [{ path, value: path }] }] },
    });

  it('completes a session whose required claims arrive at once through both replicas', async () => {
    // Each contribution decides completeness from the session row (issue 18); two that each bring one of the two
    // required paths must not both decide "incomplete".
    const sessions = await Promise.all(Array.from({ length: 8 }, () => twoClaimSession(false)));
    // The contributor is known first: neither of the two contributions below then changes the state by itself,
    // only the required paths present.
    for (const correlation of sessions)
      for (const replica of [bed, second])
        expect((await contributePath(replica, correlation, 'registry', 'nickname')).status).toBe(200);
    const results = await Promise.all(
      sessions.flatMap((correlation) => [
        contributePath(bed, correlation, 'registry', 'given'),
        contributePath(second, correlation, 'registry', 'family'),
      ]),
    );
    expect(results.map((r) => r.status)).toEqual(Array(16).fill(200));
    for (const correlation of sessions) {
      const completeness = await second.call('GET', `/sessions/${correlation}/completeness`);
      expect(completeness.body.status).toBe('READY');
      const [row] = await bed.superuser(
        'SELECT status, present_required_paths FROM issuance_sessions WHERE correlation_id = $1',
        [correlation],
      );
      expect(row).toEqual({ status: 'READY', present_required_paths: ['family', 'given'] });
    }
  });

  it('decides from the current session, not from what a replica saw last', async () => {
    const correlation = await twoClaimSession(true);
    // The first replica sees the session in progress, the second completes it: it awaits review.
    expect((await contributePath(bed, correlation, 'registry', 'given')).body.status).toBe('IN_PROGRESS');
    expect((await contributePath(second, correlation, 'registry', 'family')).body.status).toBe('AWAITING_REVIEW');
    // A session under review takes no contribution (001 §3), whatever the first replica saw last.
    const refused = await contributePath(bed, correlation, 'registry', 'other');
    expect(refused.status).toBe(409);
    const [count] = await bed.superuser(
      `SELECT count(*)::int AS n FROM issuance_session_attributes a JOIN issuance_sessions s
          ON s.tenant_id = a.tenant_id AND s.id = a.session_id WHERE s.correlation_id = $1`,
      [correlation],
    );
    expect(count).toEqual({ n: 2 });
    // Approved elsewhere: the first replica's next contribution is taken, on the READY session.
    expect(
      (await second.call('POST', `/sessions/${correlation}/approve`, { body: { decision: 'APPROVED' } })).status,
    ).toBe(200);
    const taken = await contributePath(bed, correlation, 'registry', 'other');
    expect(taken.status).toBe(200);
    expect(taken.body.status).toBe('READY');
  });
});
