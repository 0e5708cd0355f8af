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
});
