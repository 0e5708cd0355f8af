import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, openTestDatabase, type TestDatabase } from '../testing/databases.js';
import { openDatabase, platformMigrations, type Database } from '../db/index.js';
import { ManualClock } from '../observability/clock.js';
import { createLogger } from '../observability/logger.js';
import { Metrics } from '../observability/metrics.js';
import { DatabaseJobScheduler, MAX_JOB_ERROR_LENGTH } from './database-scheduler.js';
import type { JobDefinition } from './scheduler.js';

/** A promise the test settles by hand, so job bodies can be held open and observed without timing. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function job(
  name: string,
  intervalSeconds: number,
  run: JobDefinition['run'],
  extra: Partial<JobDefinition> = {},
): JobDefinition {
  return { name, intervalSeconds, run, ...extra };
}

async function jobRunsRow(db: Database, name: string) {
  const res = await db.withPlatform((sql) =>
    sql.query<{ last_status: string; last_error: string | null }>(
      `SELECT last_status, last_error FROM job_runs WHERE job_name = $1`,
      [name],
    ),
  );
  return res.rows[0];
}

async function counted(metrics: Metrics, name: string, result: string): Promise<number> {
  const values = (await metrics.jobRuns.get()).values;
  return values.find((v) => v.labels.job === name && v.labels.result === result)?.value ?? 0;
}

describe.each(DATABASE_KINDS)('DatabaseJobScheduler (%s)', (kind) => {
  let t: TestDatabase;
  let clock: ManualClock;
  let metrics: Metrics;
  let logLines: Record<string, unknown>[];
  const schedulers: DatabaseJobScheduler[] = [];

  function newScheduler(db: Database = t.db, tickSeconds = 3600): DatabaseJobScheduler {
    const logger = createLogger({
      level: 'info',
      service: 'test',
      destination: { write: (line: string) => void logLines.push(JSON.parse(line)) },
    });
    const scheduler = new DatabaseJobScheduler({ db, logger, metrics, clock, tickSeconds });
    schedulers.push(scheduler);
    return scheduler;
  }

  beforeAll(async () => {
    t = await openTestDatabase(kind);
  });
  beforeEach(() => {
    clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    metrics = new Metrics({ collectDefault: false });
    logLines = [];
  });
  afterEach(async () => {
    await Promise.all(schedulers.splice(0).map((s) => s.stop()));
    await t.db.withPlatform((sql) => sql.query('DELETE FROM job_runs'));
  });
  afterAll(async () => {
    await t.close();
  });

  it('runs a due job once and records its success', async () => {
    const scheduler = newScheduler();
    let runs = 0;
    scheduler.register(job('sessions', 300, async () => void runs++));

    expect(await scheduler.runOnce('sessions')).toBe(true);
    expect(await scheduler.runOnce('sessions')).toBe(false);

    expect(runs).toBe(1);
    const [status] = await scheduler.status();
    expect(status).toEqual({
      name: 'sessions',
      intervalSeconds: 300,
      lastStartedAt: '2030-01-01T00:00:00.000Z',
      lastFinishedAt: '2030-01-01T00:00:00.000Z',
      lastStatus: 'succeeded',
      runCount: 1,
      overdue: false,
    });
    expect(await counted(metrics, 'sessions', 'succeeded')).toBe(1);
    expect(logLines.filter((l) => l.job === 'sessions').map((l) => l.msg)).toEqual(['job started', 'job succeeded']);
    expect(logLines.find((l) => l.msg === 'job succeeded')).toHaveProperty('durationMs');
  });

  it('does not run a job before its interval has passed, and runs it once it has', async () => {
    const scheduler = newScheduler();
    let runs = 0;
    scheduler.register(job('bindings', 3600, async () => void runs++));
    await scheduler.runOnce('bindings');

    clock.advance(3599);
    expect(await scheduler.runOnce('bindings')).toBe(false);
    clock.advance(1);
    expect(await scheduler.runOnce('bindings')).toBe(true);
    expect(runs).toBe(2);
  });

  it('runs a job that is not due when forced', async () => {
    const scheduler = newScheduler();
    let runs = 0;
    scheduler.register(job('sessions', 300, async () => void runs++));
    await scheduler.runOnce('sessions');

    expect(await scheduler.runOnce('sessions', { force: true })).toBe(true);
    expect(runs).toBe(2);
    expect((await scheduler.status())[0]?.runCount).toBe(2);
  });

  it('records a failing job with its message, truncated, and without its stack', async () => {
    const scheduler = newScheduler();
    const message = `cleanup broke ${'x'.repeat(600)}`;
    scheduler.register(
      job('aux', 60, async () => {
        throw new Error(message);
      }),
    );

    expect(await scheduler.runOnce('aux')).toBe(true);

    const row = await jobRunsRow(t.db, 'aux');
    expect(row?.last_status).toBe('failed');
    expect(row?.last_error).toBe(message.slice(0, MAX_JOB_ERROR_LENGTH));
    expect((await scheduler.status())[0]).toMatchObject({ lastStatus: 'failed', runCount: 1 });
    expect(await counted(metrics, 'aux', 'failed')).toBe(1);
    const logged = logLines.find((l) => l.msg === 'job failed');
    expect(logged).toMatchObject({ job: 'aux', reason: message.slice(0, MAX_JOB_ERROR_LENGTH) });
    expect(JSON.stringify(logged)).not.toContain('database-scheduler.test.ts');
  });

  it('keeps its loop going after a job fails', async () => {
    const scheduler = newScheduler(t.db, 0.01);
    const attempts = [deferred(), deferred()];
    let runs = 0;
    scheduler.register(
      job('retry', 60, async () => {
        const attempt = runs++;
        attempts[attempt]?.resolve();
        if (attempt === 0) throw new Error('first attempt fails');
      }),
    );
    scheduler.start();

    await attempts[0]!.promise;
    // Not due again until its interval has passed on the injected clock.
    clock.advance(60);
    await attempts[1]!.promise;
    await scheduler.stop();

    expect(runs).toBe(2);
    expect(await counted(metrics, 'retry', 'failed')).toBe(1);
    expect(await counted(metrics, 'retry', 'succeeded')).toBe(1);
    expect((await scheduler.status())[0]).toMatchObject({ lastStatus: 'succeeded', runCount: 2 });
  });

  it('reports a job overdue once its last success is older than twice its interval', async () => {
    const scheduler = newScheduler();
    scheduler.register(job('sessions', 300, async () => undefined));
    scheduler.register(job('optional', 300, async () => undefined, { critical: false }));
    scheduler.start();
    const overdue = async () => Object.fromEntries((await scheduler.status()).map((s) => [s.name, s.overdue]));

    expect(await overdue()).toEqual({ sessions: false, optional: false });
    clock.advance(601);
    // Never succeeded, and the scheduler has been running for more than twice the interval.
    expect(await overdue()).toEqual({ sessions: true, optional: false });

    await scheduler.runOnce('sessions');
    expect(await overdue()).toEqual({ sessions: false, optional: false });
    clock.advance(600);
    expect(await overdue()).toEqual({ sessions: false, optional: false });
    clock.advance(1);
    expect(await overdue()).toEqual({ sessions: true, optional: false });
  });

  it('keeps counting the last success while a later run is in progress or has failed', async () => {
    const scheduler = newScheduler();
    let mode: 'succeed' | 'hold' | 'fail' = 'succeed';
    const started = deferred();
    const release = deferred();
    scheduler.register(
      job('sessions', 300, async () => {
        if (mode === 'fail') throw new Error('down');
        if (mode === 'hold') {
          started.resolve();
          await release.promise;
        }
      }),
    );
    scheduler.start();
    const sessions = async () => (await scheduler.status())[0];
    await scheduler.runOnce('sessions');

    clock.advance(300);
    mode = 'hold';
    const held = scheduler.runOnce('sessions');
    await started.promise;
    expect(await sessions()).toMatchObject({
      lastStatus: 'running',
      lastFinishedAt: '2030-01-01T00:00:00.000Z',
      overdue: false,
    });
    clock.advance(301);
    expect((await sessions())?.overdue).toBe(true);
    release.resolve();
    await held;
    expect(await sessions()).toMatchObject({
      lastStatus: 'succeeded',
      lastFinishedAt: '2030-01-01T00:10:01.000Z',
      overdue: false,
    });

    clock.advance(300);
    mode = 'fail';
    expect(await scheduler.runOnce('sessions')).toBe(true);
    expect(await sessions()).toMatchObject({
      lastStatus: 'failed',
      lastStartedAt: '2030-01-01T00:15:01.000Z',
      lastFinishedAt: '2030-01-01T00:10:01.000Z',
      runCount: 3,
      overdue: false,
    });
    clock.advance(301);
    expect((await sessions())?.overdue).toBe(true);
  });

  it('does not report a job registered after start as overdue before its grace period', async () => {
    const scheduler = newScheduler();
    scheduler.start();
    clock.advance(10_000);
    scheduler.register(job('late', 60, async () => undefined));
    expect((await scheduler.status())[0]?.overdue).toBe(false);
    clock.advance(121);
    expect((await scheduler.status())[0]?.overdue).toBe(true);
  });

  it('aborts a running job on stop and waits for it to finish', async () => {
    const scheduler = newScheduler();
    const started = deferred();
    let finished = false;
    let sawAbort = false;
    scheduler.register(
      job('held', 60, async (signal) => {
        started.resolve();
        try {
          await new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
        } finally {
          sawAbort = signal.aborted;
          finished = true;
        }
      }),
    );

    const run = scheduler.runOnce('held');
    await started.promise;
    await scheduler.stop();

    expect(finished).toBe(true);
    expect(sawAbort).toBe(true);
    expect(await run).toBe(true);
    expect(await jobRunsRow(t.db, 'held')).toEqual({ last_status: 'failed', last_error: 'aborted' });
    expect(await scheduler.runOnce('held', { force: true })).toBe(false);
  });

  it('aborts a job the loop started when it stops', async () => {
    const scheduler = newScheduler(t.db, 0.01);
    const started = deferred();
    let finished = false;
    scheduler.register(
      job('drain', 60, async (signal) => {
        started.resolve();
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        finished = true;
      }),
    );
    scheduler.start();

    await started.promise;
    await scheduler.stop();

    expect(finished).toBe(true);
    expect((await jobRunsRow(t.db, 'drain'))?.last_status).toBe('succeeded');
  });

  it('runs a job once when two replicas try at the same time', async () => {
    // PostgreSQL: a second pool, as another replica would have; PGlite: one process, so the same database.
    const second = kind === 'postgres' ? await openDatabase({ url: t.url, migrations: platformMigrations }) : t.db;
    try {
      const replicaA = newScheduler(t.db);
      const replicaB = newScheduler(second);
      const gate = deferred();
      const firstBody = deferred();
      const secondBody = deferred();
      let bodies = 0;
      const body = async () => {
        bodies++;
        (bodies === 1 ? firstBody : secondBody).resolve();
        await gate.promise;
      };
      replicaA.register(job('sessions', 300, body));
      replicaB.register(job('sessions', 300, body));

      const runs = [replicaA.runOnce('sessions'), replicaB.runOnce('sessions')];
      await firstBody.promise;
      // The replica without the lock answers at once, while the other is still inside the job body.
      const first = await Promise.race([
        Promise.race(runs).then((ran) => ({ ran })),
        secondBody.promise.then(() => 'both bodies ran' as const),
      ]);
      expect(first).toEqual({ ran: false });
      gate.resolve();
      expect((await Promise.all(runs)).sort()).toEqual([false, true]);
      expect(bodies).toBe(1);

      // After the run, neither replica finds the job due again.
      expect(await replicaB.runOnce('sessions')).toBe(false);
      expect(await replicaA.runOnce('sessions')).toBe(false);
      expect(bodies).toBe(1);
      expect((await replicaB.status())[0]).toMatchObject({ lastStatus: 'succeeded', runCount: 1 });
    } finally {
      await Promise.all(schedulers.splice(0).map((s) => s.stop()));
      if (second !== t.db) await second.close();
    }
  });
});
