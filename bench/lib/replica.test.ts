import { describe, expect, it } from 'vitest';
import { replicaRole } from './replica.js';
import { serverInDataDir } from './server-setup.js';
import { runHttpLoad } from './http.js';
import { runScenarios } from './harness.js';
import { formatMainThread } from './report.js';
import { TEST_RUN_OPTIONS } from './run-options.fixture.js';
import type { ScenarioSetup, SetupContext } from './types.js';

const FIXTURE = '../lib/replica-fixture-server';

interface FixtureAnswer {
  replica: number;
  count: number;
  seed: string;
  publicUrl: string | null;
}

const context = (replicas: number): SetupContext => ({ pin: false, cpuProfDir: null, replicas });

async function fixture(replicas: number): Promise<ScenarioSetup & { url: string }> {
  const setup = await serverInDataDir(FIXTURE, context(replicas), {}, async (child) => ({ url: child.url }));
  return setup as ScenarioSetup & { url: string };
}

const ask = async (url: string) => (await (await fetch(url)).json()) as FixtureAnswer;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('replicaRole', () => {
  it('is replica 0 of 1 without settings, and reads the harness settings', () => {
    expect(replicaRole({})).toEqual({ index: 0, count: 1, publicUrl: null });
    expect(
      replicaRole({ BENCH_REPLICA_INDEX: '1', BENCH_REPLICAS: '2', BENCH_PUBLIC_URL: 'http://127.0.0.1:1' }),
    ).toEqual({ index: 1, count: 2, publicUrl: 'http://127.0.0.1:1' });
  });

  it.each([
    [{ BENCH_REPLICA_INDEX: '2', BENCH_REPLICAS: '2' }],
    [{ BENCH_REPLICA_INDEX: '-1', BENCH_REPLICAS: '2' }],
    [{ BENCH_REPLICAS: '0' }],
    [{ BENCH_REPLICAS: 'two' }],
  ])('refuses %j', (env) => {
    expect(() => replicaRole(env)).toThrow(/bad replica settings/);
  });
});

describe('serverInDataDir with replicas', () => {
  it('one replica: one child answering directly, as before', async () => {
    const setup = await fixture(1);
    try {
      expect(setup.serverPid).toBeGreaterThan(0);
      expect(setup.replicaPids).toBeUndefined();
      expect(await ask(setup.url)).toMatchObject({ replica: 0, count: 1, publicUrl: null });
    } finally {
      await setup.teardown();
    }
    expect(alive(setup.serverPid!)).toBe(false);
  });

  it('two replicas behind the round-robin balancer: alternate per request, share replica 0’s values, CPU summed', async () => {
    const setup = await fixture(2);
    const pids = setup.replicaPids!;
    try {
      expect(pids).toHaveLength(2);
      expect(new Set(pids).size).toBe(2);
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await ask(setup.url));
      expect(answers.map((a) => a.replica)).toEqual([0, 1, 0, 1]);
      // Replica 1 read what replica 0 made; both were told the balancer's URL as their public address.
      expect(new Set(answers.map((a) => a.seed)).size).toBe(1);
      expect(answers.every((a) => a.count === 2 && a.publicUrl === new URL(setup.url).origin)).toBe(true);

      const m = await runHttpLoad({
        url: setup.url,
        connections: 4,
        durationSeconds: 1,
        replicaPids: pids,
        replicaRequests: setup.replicaRequests!,
      });
      expect(m.non2xx).toBe(0);
      expect(m.replicas!.count).toBe(2);
      const [a, b] = m.replicas!.requests;
      // Round robin: the measured requests split evenly (in-flight ones at either end aside), summing to the total.
      expect(a! + b!).toBeGreaterThanOrEqual(m.total);
      expect(Math.abs(a! - b!)).toBeLessThanOrEqual(1 + 4);
      expect(m.replicas!.cpuSeconds.every((c) => c !== null)).toBe(true);
      expect(m.cpuSeconds).toBeCloseTo(m.replicas!.cpuSeconds[0]! + m.replicas!.cpuSeconds[1]!, 6);
    } finally {
      await setup.teardown();
    }
    expect(pids.map(alive)).toEqual([false, false]);
  });
});

describe('the server main thread’s share of the CPU', () => {
  it('one server: measured beside the whole process, a part of it, and printed under the table', async () => {
    const [row] = await runScenarios(
      [
        {
          name: 'fixture',
          description: 'the replica fixture, one server',
          kind: 'http',
          connections: 4,
          setup: (setupContext) => serverInDataDir(FIXTURE, setupContext, {}, async (child) => ({ url: child.url })),
        },
      ],
      { ...TEST_RUN_OPTIONS, durationSeconds: 2, warmupSeconds: 0, windows: 2 },
      () => {},
    );
    const m = row!.measurement!;
    expect(m.non2xx).toBe(0);
    expect(m.cpuUsPerOp).toBeGreaterThan(0);
    expect(m.mainThreadCpuUsPerOp).toBeGreaterThan(0);
    // The process's time is every thread's; both are read to a clock tick (10 ms), one after the other.
    const tick = (0.011 / m.total) * 1e6 * 2;
    expect(m.mainThreadCpuUsPerOp!).toBeLessThanOrEqual(m.cpuUsPerOp! + tick);
    // A row is printed only when it has a goal.
    expect(formatMainThread([row!])).toEqual([]);
    const withGoal = { ...row!, goals: [{} as never] };
    expect(formatMainThread([withGoal])[0]).toMatch(
      /^main thread: fixture \d+(\.\d+)? of \d+(\.\d+)? us\/op \(\d+\.\d%\)$/,
    );
  });
});
