import type { Clock, Database } from '@tessera/platform';
import type { StatusListSource } from '../domain/verification/status.js';
import { decodeJws } from '../domain/verification/jws.js';
import { statusListCacheStore, type CachedStatusList } from '../storage/status-list-cache.js';
import { safeFetchText } from './safe-fetch.js';

/**
 * Status lists through a two-level cache (Token Status List §8.3): the database table shared by every replica,
 * and this process's copy of the rows it has read, both bounded by the row's expiry. A list is fetched when no
 * fresh copy exists; when that fetch fails, the check fails closed (the stale copy is not used).
 * Expiry of a fetched list: the earliest of its `exp`, its `ttl` and `maxTtlSeconds` from now.
 */
export interface StatusListSourceOptions {
  maxTtlSeconds: number;
  fetchTimeoutSeconds: number;
  maxResponseBytes: number;
  allowPrivateNetworkOrigins: readonly string[];
}

const LOCAL_LIMIT = 1024;
const ACCEPT = 'application/statuslist+jwt, application/vc+jwt, application/jwt;q=0.9';

export class CachedStatusListSource implements StatusListSource {
  private readonly local = new Map<string, CachedStatusList>();
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(private readonly deps: { db: Database; clock: Clock; options: StatusListSourceOptions }) {}

  async token(uri: string): Promise<string> {
    const now = this.deps.clock.now();
    const local = this.local.get(uri);
    if (local && local.expiresAt > now) return local.token;
    const shared = await this.deps.db.withPlatform((sql) => statusListCacheStore.get(sql, uri));
    if (shared && shared.expiresAt > now) {
      this.remember(shared);
      return shared.token;
    }
    let pending = this.inflight.get(uri);
    if (!pending) {
      pending = this.fetchAndStore(uri).finally(() => this.inflight.delete(uri));
      this.inflight.set(uri, pending);
    }
    return pending;
  }

  private async fetchAndStore(uri: string): Promise<string> {
    const { options } = this.deps;
    const response = await safeFetchText(uri, {
      timeoutMs: options.fetchTimeoutSeconds * 1000,
      maxBytes: options.maxResponseBytes,
      allowPrivateOrigins: options.allowPrivateNetworkOrigins,
      accept: ACCEPT,
    });
    if (response.status !== 200) throw new Error(`the status list answered ${response.status}`);
    const token = response.body.trim();
    const fetchedAt = this.deps.clock.now();
    const entry: CachedStatusList = { uri, token, fetchedAt, expiresAt: this.expiryOf(token, fetchedAt) };
    await this.deps.db.withPlatform((sql) => statusListCacheStore.put(sql, entry));
    this.remember(entry);
    return token;
  }

  private expiryOf(token: string, fetchedAt: Date): Date {
    const base = fetchedAt.getTime();
    let until = base + this.deps.options.maxTtlSeconds * 1000;
    const payload = decodeJws(token)?.payload;
    if (payload && typeof payload.ttl === 'number' && payload.ttl >= 0)
      until = Math.min(until, base + payload.ttl * 1000);
    if (payload && typeof payload.exp === 'number') until = Math.min(until, payload.exp * 1000);
    return new Date(Math.max(until, base));
  }

  /** This process's copies are bounded: the oldest leaves first. */
  private remember(entry: CachedStatusList): void {
    this.local.delete(entry.uri);
    if (this.local.size >= LOCAL_LIMIT) this.local.delete(this.local.keys().next().value!);
    this.local.set(entry.uri, entry);
  }

  /** Forgets this process's copies (tests; an operator's forced refresh). */
  clearLocal(): void {
    this.local.clear();
  }
}
