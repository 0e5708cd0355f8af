import type { ChangeHandlers, ChangeNotifications, ExecutionContext } from '@tessera/platform';
import { describe, expect, it } from 'vitest';
import { DesignsConfigSchema, type DesignsConfig } from '../config.js';
import { KINDS } from '../domain/kinds.js';
import type { RenderVariant, StoredDesign } from '../domain/records.js';
import type { DesignsServices } from '../services.js';
import type { DesignValidators } from '../storage/design-store.js';
import { Value } from 'typebox/value';
import { ResolveCache, resolveCacheKey, validatorsKey } from './resolve-cache.js';
import { resolveDesignCommand, type ResolveDesignOutput } from './resolve-design.js';

describe('ResolveCache', () => {
  const entry = (etag: string) => ({ validatorsKey: 'v', etag });

  it('evicts the least recently used entry beyond maxEntries', () => {
    const cache = new ResolveCache(4);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, entry(key.toUpperCase()), cache.ticket());
    expect(cache.get('a')?.etag).toBe('A'); // a is now the most recently used
    cache.set('e', entry('E'), cache.ticket());
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.etag).toBe('A');
    expect(cache.get('e')?.etag).toBe('E');
    expect(cache.size).toBe(4);
  });

  it('keeps a hit for at least half of maxEntries further insertions', () => {
    const cache = new ResolveCache(4);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, entry(key.toUpperCase()), cache.ticket());
    expect(cache.get('d')?.etag).toBe('D'); // recent: not moved
    cache.set('e', entry('E'), cache.ticket());
    cache.set('f', entry('F'), cache.ticket());
    // The two insertions evicted the two oldest; d, hit before them, is kept.
    expect(cache.get('d')?.etag).toBe('D');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeUndefined();
  });

  it('keeps nothing with maxEntries 0, and forgets a deleted entry', () => {
    const none = new ResolveCache(0);
    none.set('a', entry('A'), none.ticket());
    expect(none.get('a')).toBeUndefined();
    const cache = new ResolveCache(5);
    cache.set('a', entry('A'), cache.ticket());
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
  });

  it("drops one tenant's entries, and stores nothing read before an invalidation", () => {
    const options = { preferredLocales: [], renderTarget: null, defaultLocale: 'en' };
    const alpha = resolveCacheKey('alpha', { kind: 'CREDENTIAL', designId: 'x' }, options);
    const alphabet = resolveCacheKey('alphabet', { kind: 'CREDENTIAL', designId: 'x' }, options);
    const cache = new ResolveCache(5);
    cache.set(alpha, entry('A'), cache.ticket());
    cache.set(alphabet, entry('B'), cache.ticket());
    const before = cache.ticket();
    cache.invalidate('alpha');
    expect(cache.get(alpha)).toBeUndefined();
    expect(cache.get(alphabet)?.etag).toBe('B');
    // A read that began before the invalidation may hold what the change replaced.
    cache.set(alpha, entry('stale'), before);
    expect(cache.get(alpha)).toBeUndefined();
    cache.invalidate('');
    expect(cache.size).toBe(0);
  });

  it('is trusted only while its subscription listens, and clears itself on reset', () => {
    let handlers: ChangeHandlers | undefined;
    const subscription = { listening: false, close: async () => undefined };
    const changes = {
      subscribe: (_channel: string, h: ChangeHandlers) => ((handlers = h), subscription),
    } as unknown as ChangeNotifications;
    const cache = new ResolveCache(5);
    cache.follow(changes);
    expect(cache.trusted).toBe(false);
    subscription.listening = true;
    expect(cache.trusted).toBe(true);
    cache.set('a', entry('A'), cache.ticket());
    handlers!.reset();
    expect(cache.size).toBe(0);
    expect(new ResolveCache(0).follow(changes)).toBeNull();
  });

  it('keys by tenant, kind, how the design is named, locales and target', () => {
    const options = { preferredLocales: ['de'], renderTarget: null, defaultLocale: 'en' };
    const byId = resolveCacheKey('alpha', { kind: 'CREDENTIAL', designId: 'x' }, options);
    const keys = [
      byId,
      resolveCacheKey('beta', { kind: 'CREDENTIAL', designId: 'x' }, options),
      resolveCacheKey('alpha', { kind: 'ISSUER', designId: 'x' }, options),
      resolveCacheKey('alpha', { kind: 'CREDENTIAL', key: 'VCT', value: 'x' }, options),
      resolveCacheKey('alpha', { kind: 'CREDENTIAL', designId: 'x' }, { ...options, preferredLocales: ['en'] }),
      resolveCacheKey('alpha', { kind: 'CREDENTIAL', designId: 'x' }, { ...options, renderTarget: 'SVG' }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(resolveCacheKey('alpha', { kind: 'CREDENTIAL', designId: 'x' }, { ...options })).toBe(byId);
  });

  it('keeps keys apart whatever separators or lengths the values hold', () => {
    const options = { preferredLocales: ['de'], renderTarget: null, defaultLocale: 'en' };
    const keys = [
      resolveCacheKey('alpha', { kind: 'CREDENTIAL', key: 'VCT', value: 'a1:b' }, options),
      resolveCacheKey('alpha', { kind: 'CREDENTIAL', key: 'VCT', value: 'a' }, { ...options, preferredLocales: ['b'] }),
      resolveCacheKey(
        'alpha',
        { kind: 'CREDENTIAL', key: 'VCT', value: 'a' },
        { ...options, preferredLocales: ['de', 'b'] },
      ),
      resolveCacheKey(
        'alpha',
        { kind: 'CREDENTIAL', key: 'VCT', value: 'a' },
        { ...options, preferredLocales: ['de,b'] },
      ),
      resolveCacheKey('alpha', { kind: 'CREDENTIAL', key: 'VCT', value: 'a' }, { ...options, renderTarget: '-' }),
      resolveCacheKey('alpha', { kind: 'CREDENTIAL', key: 'VCT', value: 'a' }, options),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('tells validators apart by every member', () => {
    const base = { designId: 'd1', revision: 1, updatedAt: 't1', variants: [['v1', 't2']] as [string, string][] };
    const keys = [
      validatorsKey(base),
      validatorsKey({ ...base, designId: 'd2' }),
      validatorsKey({ ...base, revision: 11 }),
      validatorsKey({ ...base, updatedAt: 't3' }),
      validatorsKey({ ...base, variants: [] }),
      validatorsKey({ ...base, variants: [['v1', 't3']] }),
      validatorsKey({
        ...base,
        variants: [
          ['v1', 't2'],
          ['v2', 't2'],
        ],
      }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(validatorsKey({ ...base, variants: [['v1', 't2']] })).toBe(keys[0]);
  });
});

/**
 * The resolve command over stub reads that count their calls: a kept answer costs one validators read and no full
 * read while the validators stay; any change of them (an edit elsewhere) is a full read and the new answer.
 */
describe('resolve command with the cache', () => {
  function stubbedServices(maxEntries = 100) {
    const state = { revision: 1, alias: 'Card', updatedAt: '2026-11-26T10:00:00.000Z', exists: true };
    const counts = { full: 0, validators: 0 };
    const config = Value.Default(DesignsConfigSchema, { resolveCache: { maxEntries } }) as DesignsConfig;
    const stored = (): StoredDesign => ({
      record: {
        id: 'd1',
        tenantId: 'alpha',
        createdAt: '2026-11-26T09:00:00.000Z',
        updatedAt: state.updatedAt,
        entityType: 'CREDENTIAL',
        bindings: [{ key: 'VCT', value: 'urn:x' }],
        alias: state.alias,
        hostingMode: 'LOCAL',
        displays: [{ locale: 'en', name: state.alias }],
        claims: [],
      },
      sourceDocument: null,
      revision: state.revision,
    });
    const services = {
      config,
      resolveCache: new ResolveCache(config.resolveCache.maxEntries),
      readForResolve: async () => {
        counts.full++;
        return state.exists ? { stored: stored(), variants: [] as RenderVariant[] } : null;
      },
      readValidatorsForResolve: async (): Promise<DesignValidators | null> => {
        counts.validators++;
        return state.exists
          ? { designId: 'd1', revision: state.revision, updatedAt: state.updatedAt, variants: [] }
          : null;
      },
    } as unknown as DesignsServices;
    const command = resolveDesignCommand(services, KINDS.CREDENTIAL);
    const ctx = { tenantId: 'alpha' } as ExecutionContext;
    const resolve = (ifNoneMatch?: string): Promise<ResolveDesignOutput> =>
      command.run(ctx, { bindingKey: 'VCT', bindingValue: 'urn:x', ...(ifNoneMatch ? { ifNoneMatch } : {}) });
    return { state, counts, resolve };
  }

  it('answers a kept design after one validators read, and reads in full after a change', async () => {
    const { state, counts, resolve } = stubbedServices();
    const first = await resolve();
    expect(counts).toEqual({ full: 1, validators: 0 });
    const second = await resolve();
    expect(counts).toEqual({ full: 1, validators: 1 });
    expect(second).toEqual(first);
    expect(second.notModified === false && first.notModified === false && second.resolved).toBe(
      first.notModified === false && first.resolved,
    );

    state.revision = 2;
    state.alias = 'Edited';
    state.updatedAt = '2026-11-26T11:00:00.000Z';
    const third = await resolve();
    expect(counts).toEqual({ full: 2, validators: 2 });
    expect(third.notModified).toBe(false);
    expect(third.notModified === false && third.resolved.design.alias).toBe('Edited');
    expect(third.etag).not.toBe(first.etag);

    state.exists = false;
    await expect(resolve()).rejects.toMatchObject({ code: 'not_found' });
    expect(counts).toEqual({ full: 2, validators: 3 });
  });

  it('answers 304 from the validators read alone, and the same ETag as the full read', async () => {
    const { counts, resolve } = stubbedServices();
    const first = await resolve();
    const conditional = await resolve(first.etag);
    expect(conditional).toEqual({ notModified: true, etag: first.etag });
    expect(counts).toEqual({ full: 1, validators: 1 });
  });

  it('reads in full each time when nothing is kept', async () => {
    const { counts, resolve } = stubbedServices(0);
    const first = await resolve();
    const second = await resolve();
    expect(second).toEqual(first);
    expect(counts).toEqual({ full: 2, validators: 0 });
  });
});
