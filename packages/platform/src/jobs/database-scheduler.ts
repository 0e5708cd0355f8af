import { performance } from 'node:perf_hooks';
import type { Database, Sql } from '../db/database.js';
import type { Clock } from '../observability/clock.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { JobDefinition, JobScheduler, JobStatus } from './scheduler.js';

export interface DatabaseJobSchedulerOptions {
  db: Database;
  logger: Logger;
  metrics: Metrics;
  clock: Clock;
  /** How often the loop looks for due jobs; jobs run at most this late after they fall due. */
  tickSeconds?: number;
}

/** The longest error text kept in job_runs: enough to diagnose, short enough for a readiness response. */
export const MAX_JOB_ERROR_LENGTH = 500;

type RunStatus = 'running' | 'succeeded' | 'failed';

interface JobRunRow {
  job_name: string;
  last_started_at: Date | string | null;
  last_finished_at: Date | string | null;
  last_status: RunStatus | null;
  last_error: string | null;
  run_count: number | string | bigint;
}

interface RegisteredJob {
  definition: JobDefinition;
  registeredAt: Date;
}

const SELECT_RUNS = `SELECT job_name, last_started_at, last_finished_at, last_status, last_error, run_count FROM job_runs`;

const toDate = (value: Date | string | null): Date | null => (value === null ? null : new Date(value));

/** Only the message: driver errors carry data in other fields, and a stack says nothing to an operator. */
function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message || error.name : 'non-error thrown';
  return text.slice(0, MAX_JOB_ERROR_LENGTH);
}

/**
 * Background jobs that run once across all replicas (000 §8 intervals; 000 readiness: "cleanup jobs ran within
 * twice their interval"). Every replica runs the same loop; job_runs is the shared record of the last run, and
 * a per-job advisory lock decides which replica runs a job that has fallen due.
 */
export class DatabaseJobScheduler implements JobScheduler {
  private readonly db: Database;
  private readonly logger: Logger;
  private readonly metrics: Metrics;
  private readonly clock: Clock;
  private readonly tickMs: number;
  private readonly jobs = new Map<string, RegisteredJob>();
  /** Calls of runOnce in progress in this process, so that stop() can await them before the database closes. */
  private readonly inflight = new Set<Promise<boolean>>();
  /** One per job body running in this process, so that stop() can abort them. */
  private readonly controllers = new Set<AbortController>();
  private startedAt: Date | null = null;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private currentTick: Promise<void> | undefined;

  constructor(options: DatabaseJobSchedulerOptions) {
    this.db = options.db;
    this.logger = options.logger;
    this.metrics = options.metrics;
    this.clock = options.clock;
    this.tickMs = (options.tickSeconds ?? 5) * 1000;
  }

  register(job: JobDefinition): void {
    if (this.jobs.has(job.name)) throw new Error(`job already registered: ${job.name}`);
    if (!(job.intervalSeconds > 0)) throw new Error(`job ${job.name}: intervalSeconds must be positive`);
    this.jobs.set(job.name, { definition: job, registeredAt: this.clock.now() });
  }

  start(): void {
    if (this.startedAt && !this.stopped) return;
    this.stopped = false;
    this.startedAt = this.clock.now();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const controller of this.controllers) controller.abort(new Error('scheduler stopping'));
    // The tick may be between reading job_runs and starting a run; wait for it before the database closes.
    await this.currentTick;
    await Promise.allSettled([...this.inflight]);
  }

  async runOnce(name: string, options: { force?: boolean } = {}): Promise<boolean> {
    const job = this.jobs.get(name)?.definition;
    if (!job) throw new Error(`unknown job: ${name}`);
    if (this.stopped) return false;
    const call = this.runUnderLock(job, options.force === true);
    this.inflight.add(call);
    try {
      return await call;
    } finally {
      this.inflight.delete(call);
    }
  }

  async status(): Promise<JobStatus[]> {
    const rows = await this.db.withPlatform((sql) => readRuns(sql));
    const now = this.clock.now();
    return [...this.jobs.values()].map(({ definition, registeredAt }) => {
      const row = rows.get(definition.name);
      return {
        name: definition.name,
        intervalSeconds: definition.intervalSeconds,
        lastStartedAt: toDate(row?.last_started_at ?? null)?.toISOString() ?? null,
        lastFinishedAt: toDate(row?.last_finished_at ?? null)?.toISOString() ?? null,
        lastStatus: row?.last_status ?? null,
        runCount: Number(row?.run_count ?? 0),
        overdue: this.isOverdue(definition, registeredAt, row, now),
      };
    });
  }

  private isDue(job: JobDefinition, row: JobRunRow | undefined): boolean {
    const lastStarted = toDate(row?.last_started_at ?? null);
    if (!lastStarted) return true;
    return this.clock.now().getTime() - lastStarted.getTime() >= job.intervalSeconds * 1000;
  }

  private isOverdue(job: JobDefinition, registeredAt: Date, row: JobRunRow | undefined, now: Date): boolean {
    // Non-critical jobs are reported but never hold back readiness.
    if (job.critical === false) return false;
    const limitMs = 2 * job.intervalSeconds * 1000;
    const lastSuccess = lastSuccessAt(row);
    if (lastSuccess) return now.getTime() - lastSuccess.getTime() > limitMs;
    // Never succeeded: a grace of twice the interval from when this process began running it.
    if (!this.startedAt) return false;
    const since = Math.max(this.startedAt.getTime(), registeredAt.getTime());
    return now.getTime() - since > limitMs;
  }

  private async runUnderLock(job: JobDefinition, force: boolean): Promise<boolean> {
    const outcome = await this.db.withAdvisoryLock(`job:${job.name}`, async () => {
      // Another replica may have run the job between our last look and taking the lock: this re-read under the
      // lock is what makes a run happen once across replicas.
      const row = await this.db.withPlatform((sql) => readRun(sql, job.name));
      if (!force && !this.isDue(job, row)) return false;
      if (this.stopped) return false;
      await this.execute(job);
      return true;
    });
    return outcome.ran && outcome.value;
  }

  /** Runs the body and records its outcome; a job's exception ends here, as a failed run. */
  private async execute(job: JobDefinition): Promise<void> {
    const controller = new AbortController();
    this.controllers.add(controller);
    try {
      await this.db.withPlatform((sql) => markRunning(sql, job, this.clock.now()));
      // stop() may have come while the run was being recorded, before this controller could be aborted.
      if (this.stopped) controller.abort(new Error('scheduler stopping'));
      this.logger.info({ job: job.name }, 'job started');
      const began = performance.now();
      let error: string | null = null;
      try {
        await job.run(controller.signal);
      } catch (thrown) {
        error = errorText(thrown);
      }
      const durationMs = Math.round(performance.now() - began);
      const status: RunStatus = error === null ? 'succeeded' : 'failed';
      await this.db.withPlatform((sql) => markFinished(sql, job.name, this.clock.now(), error));
      this.metrics.jobRuns.inc({ job: job.name, result: status });
      if (error === null) this.logger.info({ job: job.name, durationMs }, 'job succeeded');
      else
        this.logger.warn(
          { job: job.name, durationMs, reason: error, aborted: controller.signal.aborted },
          'job failed',
        );
    } finally {
      this.controllers.delete(controller);
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.currentTick = this.tick().finally(() => {
        this.currentTick = undefined;
        this.schedule();
      });
    }, this.tickMs);
    // The loop alone must not keep the process alive.
    this.timer.unref();
  }

  /**
   * One pass over the registered jobs. Runs are sequential: each holds a pooled connection for its advisory lock,
   * and running them one at a time keeps the scheduler from starving the pool that requests need.
   */
  private async tick(): Promise<void> {
    let rows: Map<string, JobRunRow>;
    try {
      rows = await this.db.withPlatform((sql) => readRuns(sql));
    } catch (error) {
      this.logger.warn({ reason: errorText(error) }, 'job scheduler could not read job runs');
      return;
    }
    for (const { definition } of this.jobs.values()) {
      if (this.stopped) return;
      if (!this.isDue(definition, rows.get(definition.name))) continue;
      try {
        await this.runOnce(definition.name);
      } catch (error) {
        // A job's own failure is recorded by execute(); this is the database failing around it.
        this.logger.warn({ job: definition.name, reason: errorText(error) }, 'job could not be run');
      }
    }
  }
}

/**
 * When the job last succeeded. last_finished_at is written by successful runs only (see markFinished), so it keeps
 * the last success through a run in progress and through failures.
 */
function lastSuccessAt(row: JobRunRow | undefined): Date | null {
  return toDate(row?.last_finished_at ?? null);
}

async function readRun(sql: Sql, name: string): Promise<JobRunRow | undefined> {
  const res = await sql.query<JobRunRow>(`${SELECT_RUNS} WHERE job_name = $1`, [name]);
  return res.rows[0];
}

async function readRuns(sql: Sql): Promise<Map<string, JobRunRow>> {
  const res = await sql.query<JobRunRow>(SELECT_RUNS);
  return new Map(res.rows.map((row) => [row.job_name, row]));
}

async function markRunning(sql: Sql, job: JobDefinition, startedAt: Date): Promise<void> {
  await sql.query(
    `INSERT INTO job_runs (job_name, interval_seconds, last_started_at, last_status)
     VALUES ($1, $2, $3::timestamptz, 'running')
     ON CONFLICT (job_name) DO UPDATE
       SET interval_seconds = EXCLUDED.interval_seconds, last_started_at = EXCLUDED.last_started_at, last_status = 'running'`,
    [job.name, job.intervalSeconds, startedAt.toISOString()],
  );
}

/**
 * Records the outcome. A failure leaves last_finished_at at the last success: job_runs has no other place for it,
 * and readiness needs it (one failed run must not make every replica unready at once); the failed attempt shows
 * in last_started_at, last_status and last_error.
 */
async function markFinished(sql: Sql, name: string, finishedAt: Date, error: string | null): Promise<void> {
  if (error === null) {
    await sql.query(
      `UPDATE job_runs SET last_finished_at = $2::timestamptz, last_status = 'succeeded', last_error = NULL,
         run_count = run_count + 1 WHERE job_name = $1`,
      [name, finishedAt.toISOString()],
    );
  } else {
    await sql.query(
      `UPDATE job_runs SET last_status = 'failed', last_error = $2, run_count = run_count + 1 WHERE job_name = $1`,
      [name, error],
    );
  }
}
