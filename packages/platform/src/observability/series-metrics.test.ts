import client from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Metrics } from './metrics.js';

/** The command bus's metrics render exactly as prom-client's own counter and histogram would. */
describe('command metrics', () => {
  it("render the same Prometheus text as prom-client's counter and histogram, a denial counted without a duration", async () => {
    const metrics = new Metrics({ collectDefault: false });
    const reference = new client.Registry();
    const executions = new client.Counter({
      name: 'command_executions_total',
      help: 'Command executions by command id and result (success, failure, denied).',
      labelNames: ['command_id', 'result'],
      registers: [reference],
    });
    const duration = new client.Histogram({
      name: 'command_duration_seconds',
      help: 'Command execution time by command id.',
      labelNames: ['command_id'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [reference],
    });
    const seen: [string, string, number | undefined][] = [
      ['token-service.token.refresh', 'success', 0.0031],
      ['token-service.token.refresh', 'success', 0.0025],
      ['token-service.token.refresh', 'failure', 0.2],
      ['platform.audit.read-events', 'denied', undefined],
      ['designs.credential.create', 'success', 3],
    ];
    for (const [id, result, seconds] of seen) {
      metrics.commandSeries(id).record(result, seconds);
      executions.inc({ command_id: id, result });
      if (seconds !== undefined) duration.observe({ command_id: id }, seconds);
    }
    const lines = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith('command_'))
        .sort();
    const ours = lines(await metrics.render());
    expect(ours).toEqual(lines(await reference.metrics()));
    expect(ours).toContain('command_executions_total{command_id="platform.audit.read-events",result="denied"} 1');
    expect(
      ours.some((l) => l.startsWith('command_duration_seconds_count{command_id="platform.audit.read-events"')),
    ).toBe(false);
  });
});

/** The key managers' metrics: counter and histogram share their labels, the result among them. */
describe('key-management call metrics', () => {
  it("render the same Prometheus text as prom-client's counter and histogram labelled by operation and result", async () => {
    const metrics = new Metrics({ collectDefault: false });
    const reference = new client.Registry();
    const calls = new client.Counter({
      name: 'kms_calls_total',
      help: 'Key-management calls by operation and result.',
      labelNames: ['operation', 'result'],
      registers: [reference],
    });
    const duration = new client.Histogram({
      name: 'kms_call_duration_seconds',
      help: 'Key-management call duration by operation and result.',
      labelNames: ['operation', 'result'],
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [reference],
    });
    const seen: [string, 'success' | 'failure', number][] = [
      ['sign', 'success', 0.0004],
      ['sign', 'success', 0.002],
      ['sign', 'failure', 0.0001],
      ['hmac', 'success', 0.00005],
      ['hmac', 'success', 3],
    ];
    for (const [operation, result, seconds] of seen) {
      metrics.kmsSeries(operation, result).record('call', seconds);
      calls.inc({ operation, result });
      duration.observe({ operation, result }, seconds);
    }
    // A series made but never recorded into shows nothing, as a label set never incremented.
    metrics.kmsSeries('rotate', 'failure');
    const lines = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith('kms_'))
        .map((line) => line.replace(/\{(.*)\}/, (_, labels: string) => `{${labels.split(',').sort().join(',')}}`))
        .sort();
    const ours = lines(await metrics.render());
    expect(ours).toEqual(lines(await reference.metrics()));
    expect(ours).toContain('kms_calls_total{operation="sign",result="success"} 2');
    expect(ours.some((l) => l.includes('"rotate"'))).toBe(false);
  });
});
