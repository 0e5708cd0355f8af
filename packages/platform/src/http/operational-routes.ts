import type { RoleApp } from './create-app.js';
import type { Platform } from '../platform.js';

/** A dependency that must answer for the role to be ready (001 §4.5 GET /ready). */
export interface ReadinessCheck {
  name: string;
  check(): Promise<{ ok: boolean; detail?: unknown }>;
}

const TIMEOUT_MS = 2000;

async function bounded(check: ReadinessCheck): Promise<{ ok: boolean; detail?: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      check.check(),
      new Promise<{ ok: boolean; detail: string }>((resolve) => {
        timer = setTimeout(() => resolve({ ok: false, detail: 'timed out' }), TIMEOUT_MS);
      }),
    ]);
  } catch (error) {
    return { ok: false, detail: (error as Error).message?.slice(0, 200) ?? 'failed' };
  } finally {
    clearTimeout(timer);
  }
}

/** The readiness checks every role has: database pool, key management, tenant cache, background jobs. */
export function platformReadiness(platform: Platform): ReadinessCheck[] {
  return [
    { name: 'database', check: async () => (await platform.db.ping(TIMEOUT_MS), { ok: true }) },
    { name: 'keys', check: async () => (await platform.keys.health(), { ok: true }) },
    {
      name: 'tenants',
      check: async () => ({ ok: platform.tenants.loaded, detail: { count: platform.tenants.list().length } }),
    },
    {
      name: 'jobs',
      check: async () => {
        const jobs = await platform.jobs.status();
        const overdue = jobs.filter((j) => j.overdue).map((j) => j.name);
        return {
          ok: overdue.length === 0,
          detail: jobs.map((j) => ({
            name: j.name,
            lastStatus: j.lastStatus,
            lastFinishedAt: j.lastFinishedAt,
            overdue: j.overdue,
          })),
        };
      },
    },
  ];
}

export type OperationalSet = 'all' | 'health' | 'health-readiness';

async function runChecks(checks: ReadinessCheck[]) {
  const results = await Promise.all(checks.map(async (c) => [c.name, await bounded(c)] as const));
  return { ready: results.every(([, r]) => r.ok), results };
}

/**
 * The operational endpoints (001 §4.5, "every container, not for the public gateway"). The management listener
 * serves them all: GET /health (liveness), /ready (dependencies, with details), /version, /metrics. A role listener
 * that faces the gateway serves /health only (issue 13 §3); the bridge's /health reports its readiness as booleans,
 * without error text (000 §4.5: database, key management, cleanup jobs within twice their interval), 503 when one
 * is false. They resolve no tenant and are not rate limited.
 */
export function registerOperationalRoutes(
  app: RoleApp,
  platform: Platform,
  extra: ReadinessCheck[],
  set: OperationalSet = 'all',
): void {
  const ops = { tenant: 'none' as const, rateLimit: false as const, auth: 'none' as const };
  const checks = [...platformReadiness(platform), ...extra];

  if (set === 'health-readiness') {
    app.get('/health', { config: ops, schema: { hide: true } }, async (_request, reply) => {
      const { ready, results } = await runChecks(checks);
      return reply
        .status(ready ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({
          status: ready ? 'ok' : 'unavailable',
          checks: Object.fromEntries(results.map(([name, r]) => [name, r.ok])),
        });
    });
  } else {
    app.get('/health', { config: ops, schema: { hide: true } }, async () => ({ status: 'ok' }));
  }
  if (set !== 'all') return;

  app.get('/ready', { config: ops, schema: { hide: true } }, async (_request, reply) => {
    const { ready, results } = await runChecks(checks);
    return reply
      .status(ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) });
  });

  app.get('/version', { config: ops, schema: { hide: true } }, async () => ({
    version: platform.config.build.version,
    revision: platform.config.build.revision,
    builtAt: platform.config.build.builtAt,
    node: process.version,
    // The range of the base libraries this build supports (the platform's contract with the contexts).
    baseLibraries: { node: '>=20.19 <23', postgres: '>=15', fastify: '5.x' },
  }));

  app.get('/metrics', { config: ops, schema: { hide: true } }, async (_request, reply) =>
    reply.header('content-type', platform.metrics.contentType()).send(await platform.metrics.render()),
  );
}
