import client from 'prom-client';
import { HttpMetrics } from './http-metrics.js';
import { SeriesMetrics, type MetricSeries } from './series-metrics.js';

/** The series of one command id: executions by result, and the duration of those that ran. */
export type CommandSeries = MetricSeries<{ command_id: string }>;

type KmsLabels = { operation: string; result: string };
/** The series of one key-management operation and result: its calls and their duration. */
export type KmsSeries = MetricSeries<KmsLabels>;

/**
 * Prometheus metrics (001 §4.5): runtime (default metrics), HTTP server rate and latency by route template,
 * errors, command executions per command id, key-management calls. One registry per process; every role app in
 * the process labels its series with `role`.
 */
export class Metrics {
  readonly registry = new client.Registry();
  /** http_requests_total and http_request_duration_seconds, per route series. */
  readonly http: HttpMetrics;
  readonly httpErrors: client.Counter<'role' | 'route' | 'code'>;
  /**
   * command_executions_total (by result: success, failure, denied) and command_duration_seconds, per command id
   * (`commandSeries(id)`), without prom-client's per-call label hashing: the bus records into a command's series
   * twice per request on the token endpoint.
   */
  private readonly commands: SeriesMetrics<{ command_id: string }>;
  /** The executions counter as registered (its `get()` gives the values by command_id and result). */
  readonly commandExecutions: SeriesMetrics<{ command_id: string }>['counter'];
  /**
   * Key-management calls (001 §4.5, "key-management call metrics"): kms_calls_total and kms_call_duration_seconds by
   * operation and result, kept as series (`kmsSeries`) like the commands': a signing request makes several calls.
   */
  private readonly kms: SeriesMetrics<KmsLabels>;
  /** kms_calls_total as registered (its `get()` gives the values by operation and result). */
  readonly kmsCalls: SeriesMetrics<KmsLabels>['counter'];
  readonly jobRuns: client.Counter<'job' | 'result'>;
  readonly auditAppends: client.Counter<'result'>;

  constructor(options: { collectDefault?: boolean } = {}) {
    if (options.collectDefault !== false) client.collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.http = new HttpMetrics(this.registry);
    this.httpErrors = new client.Counter({
      name: 'http_errors_total',
      help: 'HTTP error responses by role, route template and error code.',
      labelNames: ['role', 'route', 'code'],
      registers,
    });
    this.commands = new SeriesMetrics(this.registry, {
      counter: {
        name: 'command_executions_total',
        help: 'Command executions by command id and result (success, failure, denied).',
        outcomeLabel: 'result',
      },
      histogram: {
        name: 'command_duration_seconds',
        help: 'Command execution time by command id.',
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      },
    });
    this.commandExecutions = this.commands.counter;
    this.kms = new SeriesMetrics(this.registry, {
      counter: { name: 'kms_calls_total', help: 'Key-management calls by operation and result.' },
      histogram: {
        name: 'kms_call_duration_seconds',
        help: 'Key-management call duration by operation and result.',
        buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      },
    });
    this.kmsCalls = this.kms.counter;
    this.jobRuns = new client.Counter({
      name: 'job_runs_total',
      help: 'Background job runs by job and result.',
      labelNames: ['job', 'result'],
      registers,
    });
    this.auditAppends = new client.Counter({
      name: 'audit_events_appended_total',
      help: 'Audit events appended.',
      labelNames: ['result'],
      registers,
    });
  }

  /** The metrics series of a command id (made on first use; the bus keeps it per command). */
  commandSeries(commandId: string): CommandSeries {
    return this.commands.series(commandId, () => ({ command_id: commandId }));
  }

  /** The series of one key-management operation and result (made on first use; the key manager keeps it). */
  kmsSeries(operation: string, result: 'success' | 'failure'): KmsSeries {
    return this.kms.series(`${operation} ${result}`, () => ({ operation, result }));
  }

  contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
