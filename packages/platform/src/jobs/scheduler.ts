/** Background jobs that run once across all replicas (issue 2 §14). */
export interface JobDefinition {
  name: string;
  intervalSeconds: number;
  /** When true, /ready reports not ready if the job has not succeeded within twice its interval. */
  critical?: boolean;
  run(signal: AbortSignal): Promise<void>;
}

export interface JobStatus {
  name: string;
  intervalSeconds: number;
  lastStartedAt: string | null;
  lastFinishedAt: string | null;
  lastStatus: 'running' | 'succeeded' | 'failed' | null;
  runCount: number;
  /** True when the last success is older than twice the interval (or never happened after a grace period). */
  overdue: boolean;
}

export interface JobScheduler {
  register(job: JobDefinition): void;
  start(): void;
  stop(): Promise<void>;
  /** Runs one job now if no replica is running it and it is due (or `force`); answers whether it ran. */
  runOnce(name: string, options?: { force?: boolean }): Promise<boolean>;
  status(): Promise<JobStatus[]>;
}
