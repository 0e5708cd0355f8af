// The CPU of one audit event appended and chained, in isolation (docs/decisions.md, "Token signing reads its key
// once per token; the audit chaining's share measured again"): AuditStore.append on a PostgreSQL test database,
// in batches of a fixed size (each batch appended at once and awaited, so that one group commit carries it), then
// the same events prepared and chained without the database. CPU per event of the whole process and of its main
// thread (Linux: /proc). Needs the test PostgreSQL (TEST_DATABASE_URL, as the tests use).
//   npx tsx bench/tools/audit-append-cost.ts [batch size, default 11] [events, default 40000]
import { randomBytes, randomUUID } from 'node:crypto';
import { openTestDatabase, seedTenants } from '@tessera/platform/testing';
import { AuditStore, createLogger, GENESIS_HASH, Metrics, SoftwareKeyManager, systemClock } from '@tessera/platform';
// The appender's own steps, which the platform does not export: what an append costs before the database.
import { chain } from '../../packages/platform/src/audit/audit-chain.js';
import { prepareAuditEvent } from '../../packages/platform/src/audit/audit-prepare.js';
import { mainThreadCpuSeconds, processCpuSeconds } from '../lib/proc.js';

const batch = Number(process.argv[2] ?? 11);
const events = Number(process.argv[3] ?? 40_000);
if (!(batch >= 1) || !(events >= batch)) {
  console.error('usage: audit-append-cost [batch size] [events]');
  process.exit(2);
}

/** A token refresh's event, as the command bus prepares it. */
const input = () => ({
  tenantId: 'acme',
  type: 'command.executed',
  commandId: 'token-service.token.refresh-access-token',
  principalId: 'demo-client',
  result: 'success' as const,
  correlationId: randomUUID(),
  businessIds: { clientId: 'demo-client', grantId: randomUUID() },
  details: { policy: { decision: 'allow', reason: 'public' }, durationMs: 1.234 },
});

/** CPU µs per event of `run` (whole process, main thread). */
async function measure(run: () => Promise<void> | void): Promise<{ process: number; main: number }> {
  const read = () => [processCpuSeconds(process.pid) ?? NaN, mainThreadCpuSeconds(process.pid) ?? NaN] as const;
  const [p0, m0] = read();
  await run();
  const [p1, m1] = read();
  const per = (seconds: number) => +((seconds * 1e6) / events).toFixed(1);
  return { process: per(p1 - p0), main: per(m1 - m0) };
}

const t = await openTestDatabase('postgres');
try {
  await seedTenants(t.db, 'acme');
  const metrics = new Metrics({ collectDefault: false });
  const store = new AuditStore({
    db: t.db,
    keys: new SoftwareKeyManager({ db: t.db, masterKey: randomBytes(32), metrics }),
    metrics,
    clock: systemClock,
    logger: createLogger({ level: 'silent', service: 'audit-append-cost' }),
    signing: { enabled: false, checkpointEveryEvents: 1000 },
  });
  const appendBatches = async (count: number) => {
    for (let done = 0; done < count; done += batch)
      await Promise.all(Array.from({ length: batch }, () => store.append(input())));
  };
  await appendBatches(Math.min(events, 2_000)); // warm-up: JIT and the chain head known
  const appended = await measure(() => appendBatches(events));
  const computed = await measure(() => {
    for (let done = 0; done < events; done += batch)
      chain(
        { seq: 0, hash: GENESIS_HASH },
        Array.from({ length: batch }, () => prepareAuditEvent(input(), { clock: systemClock })),
      );
  });
  await store.close();
  console.log(JSON.stringify({ batch, events, appendUsPerEvent: appended, prepareAndChainUsPerEvent: computed }));
} finally {
  await t.close();
}
