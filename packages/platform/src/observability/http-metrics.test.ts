import client from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HTTP_DURATION_BUCKETS, HttpMetrics } from './http-metrics.js';

/** The per-route HTTP metrics render exactly as prom-client's own counter and histogram would. */
describe('HttpMetrics', () => {
  it("renders the same Prometheus text as prom-client's counter and histogram for the same requests", async () => {
    const ours = new client.Registry();
    const http = new HttpMetrics(ours);
    const reference = new client.Registry();
    const requests = new client.Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by role, method, route template and status.',
      labelNames: ['role', 'method', 'route', 'status'],
      registers: [reference],
    });
    const duration = new client.Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by role, method and route template.',
      labelNames: ['role', 'method', 'route'],
      buckets: [...HTTP_DURATION_BUCKETS],
      registers: [reference],
    });
    const seen: [string, string, string, number, number][] = [
      ['bridge', 'GET', '/health', 200, 0.0004],
      ['bridge', 'GET', '/health', 200, 0.001],
      ['bridge', 'POST', '/auth/oid4vp/sessions', 201, 0.0121],
      ['bridge', 'POST', '/auth/oid4vp/sessions', 400, 0.0031],
      ['token', 'POST', '/token', 200, 7.5],
      ['token', 'POST', '/token', 401, 0.0025],
      ['token', 'GET', 'unmatched', 404, 0.00001],
    ];
    for (const [role, method, route, status, seconds] of seen) {
      http.route(role, method, route).record(status, seconds);
      requests.inc({ role, method, route, status: String(status) });
      duration.observe({ role, method, route }, seconds);
    }
    const lines = (text: string) => text.split('\n').filter(Boolean).sort();
    expect(lines(await ours.metrics())).toEqual(lines(await reference.metrics()));
  });

  it('counts a value equal to a bucket bound in that bucket (le is inclusive)', async () => {
    const registry = new client.Registry();
    const http = new HttpMetrics(registry);
    http.route('r', 'GET', '/x').record(200, 0.005);
    const text = await registry.metrics();
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.0025",role="r",method="GET",route="/x"} 0');
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.005",role="r",method="GET",route="/x"} 1');
  });
});
