import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runScenarios } from './harness.js';
import { runHttpLoad } from './http.js';
import { TEST_RUN_OPTIONS } from './run-options.fixture.js';
import type { RunOptions, Scenario } from './types.js';

const RUN: RunOptions = { ...TEST_RUN_OPTIONS, durationSeconds: 1, warmupSeconds: 0, connections: 2 };

/** A scenario may name the status its responses should have (a conditional request's 304). */
describe('runHttpLoad: the expected status', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.statusCode = 304;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('counts a 304 as a success when the scenario expects it, and as a failure otherwise', async () => {
    const expected = await runHttpLoad({ url, connections: 2, durationSeconds: 1, expectedStatus: 304 });
    expect(expected.total).toBeGreaterThan(0);
    expect(expected.non2xx).toBe(0);
    expect(expected.latencyMs.max).toBeGreaterThan(0);

    const plain = await runHttpLoad({ url, connections: 2, durationSeconds: 1 });
    expect(plain.total).toBeGreaterThan(0);
    expect(plain.non2xx).toBe(plain.total);
  });

  it('measures in windows: each window counted once, the latencies of all of them together', async () => {
    const scenario: Scenario = {
      name: 'not-modified',
      description: 'a 304',
      kind: 'http',
      setup: async () => ({ url, expectedStatus: 304, teardown: async () => {} }),
    };
    const [row] = await runScenarios([scenario], { ...RUN, durationSeconds: 1.5, windows: 3 }, () => {});
    const m = row!.measurement!;
    expect(m.windows).toHaveLength(3);
    expect(m.total).toBeGreaterThan(0);
    expect(m.non2xx).toBe(0);
    expect(m.durationSeconds).toBeGreaterThan(1);
    expect(m.latencyMs.max).toBeGreaterThan(0);
    expect(m.windows!.every((w) => w.perSecond > 0)).toBe(true);
  });
});
