import { DATABASE_KINDS } from '@tessera/platform/testing';
import type { RoleApp } from '@tessera/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESIGNS_CHANGED_CHANNEL } from '../src/commands/resolve-cache.js';
import { credentialDesign, designsConfig, startDesignsBed, startReplica, type DesignsBed } from './support.js';

const CREDENTIALS = '/api/v1/designs/credentials';
const RESOLVE = `${CREDENTIALS}/resolve`;

/** Polls `read` until `done` holds of its value; fails after `timeoutMs` (the consistency window is milliseconds). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`not reached in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const resolve = (app: RoleApp, token: string, body: object, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: RESOLVE,
    headers: { authorization: `Bearer ${token}`, ...headers },
    payload: body,
  });

/**
 * The resolve cache follows committed changes through notifications (commands/resolve-cache.ts, migration 0002):
 * a change written by any path, on any replica, reaches every replica's cache.
 */
describe.each(DATABASE_KINDS)('resolve cache invalidated by notifications (%s)', (kind) => {
  let bed: DesignsBed;

  beforeAll(async () => {
    bed = await startDesignsBed(kind);
  }, 120_000);
  afterAll(async () => {
    await bed?.close();
  });

  it('drops a kept answer when a statement outside the commands changes the design (the trigger announces it)', async () => {
    await eventually(
      async () => bed.t.platform.db.changes.isListening(DESIGNS_CHANGED_CHANNEL),
      (listening) => listening,
    );
    const binding = { key: 'VCT', value: 'urn:n:direct' };
    const d = (
      await bed.app.inject({
        method: 'POST',
        url: CREDENTIALS,
        headers: { authorization: `Bearer ${bed.tokens.alphaAdmin}` },
        payload: credentialDesign({ bindings: [binding], alias: 'Before' }),
      })
    ).json();
    const body = { bindingKey: 'VCT', bindingValue: binding.value };
    const first = await resolve(bed.app, bed.tokens.alphaReader, body);
    expect((await resolve(bed.app, bed.tokens.alphaReader, body)).body).toBe(first.body);

    // An operator's statement: no command runs, so only the database's notification can tell the cache.
    await bed.t.platform.db.withTenant('alpha', (sql) =>
      sql.query(
        `UPDATE design_records SET alias = 'After', revision = revision + 1,
                updated_at = updated_at + interval '1 second' WHERE id = $1`,
        [d.id],
      ),
    );
    const after = await eventually(
      () => resolve(bed.app, bed.tokens.alphaReader, body),
      (res) => res.json().design.alias === 'After',
    );
    expect(after.headers.etag).not.toBe(first.headers.etag);
    const conditional = await resolve(bed.app, bed.tokens.alphaReader, body, { 'if-none-match': first.headers.etag! });
    expect(conditional.statusCode).toBe(200);
  });
});

describe('resolve cache across processes on PostgreSQL', () => {
  let bed: DesignsBed;
  let replica: Awaited<ReturnType<typeof startReplica>>;
  const write = (method: 'POST' | 'PUT', url: string, body: object) =>
    bed.app.inject({ method, url, headers: { authorization: `Bearer ${bed.tokens.alphaAdmin}` }, payload: body });
  const onReplica = (body: object, headers: Record<string, string> = {}) =>
    resolve(replica.app, bed.tokens.alphaReader, body, headers);

  beforeAll(async () => {
    bed = await startDesignsBed('postgres');
    replica = await startReplica(bed, designsConfig());
    await eventually(
      async () => replica.t.platform.db.changes.isListening(DESIGNS_CHANGED_CHANNEL),
      (listening) => listening,
    );
  }, 120_000);
  afterAll(async () => {
    await replica?.close();
    await bed?.close();
  });

  it('answers a write committed by another process once its notification arrives, 200 and 304 alike', async () => {
    const binding = { key: 'VCT', value: 'urn:n:other-process' };
    const d = (await write('POST', CREDENTIALS, credentialDesign({ bindings: [binding], alias: 'One' }))).json();
    const body = { bindingKey: 'VCT', bindingValue: binding.value };
    const warm = await onReplica(body);
    expect(warm.json().design.alias).toBe('One');
    expect((await onReplica(body, { 'if-none-match': warm.headers.etag! })).statusCode).toBe(304);

    expect((await write('PUT', `${CREDENTIALS}/${d.id}`, { ...d, alias: 'Two' })).statusCode).toBe(200);
    const started = Date.now();
    const seen = await eventually(
      () => onReplica(body),
      (res) => res.json().design.alias === 'Two',
    );
    // Milliseconds in practice; the bound leaves room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(seen.headers.etag).not.toBe(warm.headers.etag);
    expect((await onReplica(body, { 'if-none-match': warm.headers.etag! })).statusCode).toBe(200);
    expect((await onReplica(body, { 'if-none-match': seen.headers.etag! })).statusCode).toBe(304);
  });

  it('validates what it keeps once its listener is gone: a write is seen by the next request', async () => {
    const binding = { key: 'VCT', value: 'urn:n:no-listener' };
    const d = (await write('POST', CREDENTIALS, credentialDesign({ bindings: [binding], alias: 'Kept' }))).json();
    const body = { bindingKey: 'VCT', bindingValue: binding.value };
    const warm = await onReplica(body);
    expect((await onReplica(body)).body).toBe(warm.body);

    // The replica's listener ends (as when its connection is lost): it no longer hears of any change.
    await replica.t.platform.db.changes.close();
    expect(replica.t.platform.db.changes.isListening(DESIGNS_CHANGED_CHANNEL)).toBe(false);
    expect((await write('PUT', `${CREDENTIALS}/${d.id}`, { ...d, alias: 'Changed' })).statusCode).toBe(200);
    // No waiting: the kept answer is checked against the design's validators before it is used.
    const next = await onReplica(body);
    expect(next.json().design.alias).toBe('Changed');
    expect((await onReplica(body, { 'if-none-match': warm.headers.etag! })).statusCode).toBe(200);
    expect((await onReplica(body, { 'if-none-match': next.headers.etag! })).statusCode).toBe(304);
  });
});
