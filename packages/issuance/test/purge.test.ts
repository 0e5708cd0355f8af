import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoleApp } from '@tessera/platform';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { issueCallbackToken, purgeExpired, PURGE_EXPIRED_JOB, registerIssuanceRoutes } from '../src/index.js';
import { startIssuanceBed, TEST_CONFIG, unique, type IssuanceBed } from './support/bed.js';

/** Sessions past their ttl leave with their sealed bag; spent callback tokens past their expiry too (001 §8). */
describe.each(DATABASE_KINDS)('purge of expired sessions (%s)', (kind) => {
  let bed: IssuanceBed;
  beforeAll(async () => {
    bed = await startIssuanceBed(kind);
  }, 120_000);
  afterAll(async () => bed?.close());

  const start = async (ttl: number) => {
    const res = await bed.call('POST', '/sessions', {
      body: { pipeline_configuration: { pipelineId: unique('p') }, ttl_seconds: ttl },
    });
    expect(res.status).toBe(200);
    const correlation = res.body.correlation_id as string;
    const groups = [{ contributorId: 'c', phase: 'OID4VCI_DEFERRED', attributes: [{ path: 'a', value: 1 }] }];
    const { token } = await issueCallbackToken(
      bed.t.platform.keys,
      { tenantId: 'alpha', correlationId: correlation, contributorId: 'c' },
      new Date(),
      120,
    );
    expect(
      (await bed.call('POST', `/sessions/${correlation}/callbacks/${token}`, { token: null, body: { groups } })).status,
    ).toBe(200);
    return correlation;
  };
  const count = async (table: string) =>
    (await bed.superuser(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n as number;

  it('removes sessions past their ttl with their attributes, keeps live ones, and answers 404 for them', async () => {
    const shortLived = await start(60);
    const live = await start(3600);
    expect(await count('issuance_session_attributes')).toBe(2);
    const counts = await purgeExpired(bed.t.platform.db, new Date(Date.now() + 180_000));
    expect(counts).toEqual({ sessions: 1, spentTokens: 2 });
    expect(await count('issuance_session_attributes')).toBe(1);
    const left = await bed.superuser(`SELECT correlation_id FROM issuance_sessions`);
    expect(left).toEqual([{ correlation_id: live }]);
    expect((await bed.call('GET', `/sessions/${shortLived}/completeness`)).status).toBe(404);
    expect((await bed.call('GET', `/sessions/${live}/completeness`)).status).toBe(200);
  });

  it('is registered with the platform scheduler by the role registration', async () => {
    const app = await createRoleApp(bed.t.platform, { role: 'issuance-2', title: 'second', family: 'design' });
    await registerIssuanceRoutes(app, bed.t.platform, { config: TEST_CONFIG });
    const status = await bed.t.platform.jobs.status();
    expect(status.map((j) => j.name)).toContain(PURGE_EXPIRED_JOB);
    expect(await bed.t.platform.jobs.runOnce(PURGE_EXPIRED_JOB, { force: true })).toBe(true);
    await app.close();
  });
});
