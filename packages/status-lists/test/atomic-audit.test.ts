import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DATABASE_KINDS, loseAuditChaining, refuseAuditStaging } from '@tessera/platform/testing';
import { ALLOCATE_STATUS_ENTRY } from '../src/commands/allocate-status-entry.js';
import { UPDATE_STATUS_ENTRY } from '../src/commands/update-status-entry.js';
import { allocate, call, createList, startBed, TENANT, type Bed } from './support.js';

/**
 * Issue 13 §7 for status-list entries: an allocation and a status change commit with their audit event (staged by
 * the batched statement or transaction that makes them, then chained), under concurrency and across roll-overs.
 * When the event cannot be staged the command answers 503 and the list is as it was; when it cannot be chained
 * after the commit, the command still answers its result and the recovery chains the staged event.
 */
describe.each(DATABASE_KINDS)('status-list entry writes and their audit events (%s)', (kind) => {
  let bed: Bed;
  beforeAll(async () => {
    bed = await startBed(kind);
  }, 120_000);
  afterAll(async () => bed?.close());
  afterEach(() => {
    chainAgain();
    vi.restoreAllMocks();
  });

  const query = async <R>(text: string, params: unknown[] = []) =>
    (await bed.t.platform.db.withTenant(TENANT, (sql) => sql.query<R>(text, params))).rows;
  /** Still staged once the chaining this process queued has ended (commands answer before it). */
  const staged = async () => {
    await bed.t.platform.audit.settled();
    return (await query<{ n: number }>('SELECT count(*)::int AS n FROM audit_pending'))[0]!.n;
  };
  const events = async (commandId: string) =>
    (await bed.t.platform.audit.query({ tenantId: TENANT, commandId, limit: 1000 })).events;
  /** The lists of a series and their entries: counters, versions and chunk bytes. */
  const series = (prefix: string) =>
    query<{ list_id: string; allocated: number; version: string; chunks: string | null }>(
      `SELECT l.list_id, l.allocated, l.version::text AS version,
              (SELECT string_agg(encode(c.bytes, 'hex'), '' ORDER BY c.chunk_no)
                 FROM status_list_chunks c WHERE c.list_id = l.list_id) AS chunks
         FROM status_lists l WHERE starts_with(l.list_id, $1) ORDER BY l.list_id`,
      [prefix],
    );
  const put = (listId: string, index: number, status: string) =>
    call(bed.app, 'PUT', `/vc/status-lists/${listId}/entries/${index}`, bed.tokens.admin, { status });
  const post = (listId: string) => call(bed.app, 'POST', `/vc/status-lists/${listId}/entries`, bed.tokens.admin);

  /** Chaining the events of `commandId` fails, as when the database goes away right after the commit. */
  let chainAgain = () => {};
  function loseChainingOf(commandId: string) {
    chainAgain = loseAuditChaining(bed.t.platform.audit, (event) => event.commandId === commandId);
  }

  it('concurrent allocations across roll-overs and concurrent changes each chain one event; nothing stays staged', async () => {
    await createList(bed, 'atomic-a', { length: 16 });
    const entries = await Promise.all(Array.from({ length: 40 }, () => allocate(bed, 'atomic-a')));
    const handed = entries.map((e) => `${e.listId}#${e.index}`);
    expect(new Set(handed).size).toBe(40);
    expect(new Set(entries.map((e) => e.listId)).size).toBeGreaterThan(1);
    // Changes of one list in one batch: two of them refused alone (an index never handed out, a revoked one again).
    const first = entries.filter((e) => e.listId === 'atomic-a');
    const changes = await Promise.all([
      ...first.slice(0, 6).map((e) => put(e.listId, e.index, 'revoked')),
      put('atomic-a', first[0]!.index, 'valid'),
    ]);
    expect(changes.slice(0, 6).map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(changes[6]!.statusCode).toBe(409);
    await bed.t.platform.audit.whenIdle();
    expect(await staged()).toBe(0);

    const allocated = (await events(ALLOCATE_STATUS_ENTRY)).filter((e) => e.businessIds.listId?.startsWith('atomic-a'));
    expect(allocated.map((e) => e.result)).toEqual(Array(40).fill('success'));
    expect(new Set(allocated.map((e) => `${e.businessIds.listId}#${e.businessIds.index}`))).toEqual(new Set(handed));
    const updated = (await events(UPDATE_STATUS_ENTRY)).filter((e) => e.businessIds.listId === 'atomic-a');
    expect(updated.filter((e) => e.result === 'success')).toHaveLength(6);
    expect(updated.filter((e) => e.result === 'failure')).toHaveLength(1);
    expect(updated.filter((e) => e.result === 'success').every((e) => e.businessIds.newStatus === 'invalid')).toBe(
      true,
    );
    expect(await bed.t.platform.audit.verify(TENANT)).toMatchObject({ ok: true });
  });

  it('allocations whose events cannot be staged answer 503 and move no counter', async () => {
    await createList(bed, 'atomic-b', { length: 16 });
    await allocate(bed, 'atomic-b');
    const before = await series('atomic-b');
    const failures = (await events(ALLOCATE_STATUS_ENTRY)).filter((e) => e.result === 'failure').length;
    const lift = await refuseAuditStaging(bed.t.platform.db, ALLOCATE_STATUS_ENTRY);
    let refused;
    try {
      refused = await Promise.all(Array.from({ length: 5 }, () => post('atomic-b')));
    } finally {
      await lift();
    }
    for (const response of refused) {
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBeDefined();
    }
    expect(await series('atomic-b')).toEqual(before);
    await bed.t.platform.audit.whenIdle();
    expect(await staged()).toBe(0);
    expect((await events(ALLOCATE_STATUS_ENTRY)).filter((e) => e.result === 'failure')).toHaveLength(failures + 5);
    // The next allocation takes the counter where it stood.
    await allocate(bed, 'atomic-b');
    expect((await series('atomic-b'))[0]!.allocated).toBe(before[0]!.allocated + 1);
    expect(await bed.t.platform.audit.verify(TENANT)).toMatchObject({ ok: true });
  });

  it('status changes whose events cannot be staged answer 503 and change no status, version or chunk', async () => {
    await createList(bed, 'atomic-c', { length: 16 });
    const [one, two] = await Promise.all([allocate(bed, 'atomic-c'), allocate(bed, 'atomic-c')]);
    expect((await put('atomic-c', one!.index, 'revoked')).statusCode).toBe(200);
    const before = await series('atomic-c');
    const lift = await refuseAuditStaging(bed.t.platform.db, UPDATE_STATUS_ENTRY);
    let refused;
    try {
      refused = await Promise.all([put('atomic-c', two!.index, 'revoked'), put('atomic-c', two!.index, 'valid')]);
    } finally {
      await lift();
    }
    expect(refused.map((r) => r.statusCode)).toEqual([503, 503]);
    expect(await series('atomic-c')).toEqual(before);
    const read = await call(bed.app, 'GET', `/vc/status-lists/atomic-c/entries/${two!.index}`, bed.tokens.admin);
    expect(read.json()).toMatchObject({ status: 'valid' });
    await bed.t.platform.audit.whenIdle();
    expect(await staged()).toBe(0);
    expect(await bed.t.platform.audit.verify(TENANT)).toMatchObject({ ok: true });
  });

  it('answers a committed allocation and change whose events cannot be chained; the recovery chains them', async () => {
    await createList(bed, 'atomic-d', { length: 16 });
    loseChainingOf(ALLOCATE_STATUS_ENTRY);
    const entry = await allocate(bed, 'atomic-d');
    chainAgain();
    loseChainingOf(UPDATE_STATUS_ENTRY);
    expect((await put('atomic-d', entry.index, 'revoked')).statusCode).toBe(200);
    chainAgain();
    expect(await staged()).toBe(2);
    expect(await bed.t.platform.audit.recoverPending(-60)).toBe(2);
    expect(await staged()).toBe(0);
    const recovered = [...(await events(ALLOCATE_STATUS_ENTRY)), ...(await events(UPDATE_STATUS_ENTRY))].filter(
      (e) => e.businessIds.listId === 'atomic-d',
    );
    expect(recovered).toHaveLength(2);
    for (const event of recovered) expect(event).toMatchObject({ result: 'success', details: { recovered: true } });
    expect(await bed.t.platform.audit.verify(TENANT)).toMatchObject({ ok: true });
  });
});
