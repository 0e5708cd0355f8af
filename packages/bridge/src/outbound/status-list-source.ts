import type { Clock, Database } from '@tessera/platform';
import type { StatusListSource } from '../domain/verification/status.js';
import { decodeJws } from '../domain/verification/jws.js';
import { isStatusListMediaType, statusListExpiry } from '../domain/verification/status-list-lifetime.js';
import { statusListCacheStore, type CachedStatusList } from '../storage/status-list-cache.js';
import { safeFetchText } from '@tessera/platform';

/**
 * Status lists through a two-level cache (Token Status List §8.3): the database table shared by every replica,
 * and this process's copy of the rows it has read, both bounded by the row's expiry. A list is fetched when no
 * fresh copy exists; when that fetch fails, the check fails closed (the stale copy is not used).
 * Expiry of a fetched list: its `ttl` and the HTTP freshness (`Cache-Control`, `Expires`) kept within
 * `minTtlSeconds`..`maxTtlSeconds`, never past its `exp` (domain/verification/status-list-lifetime.ts).
 * A list served as another media type than `application/statuslist+jwt` or `application/vc+jwt` is refused.
 */
export interface StatusListSourceOptions {
  minTtlSeconds: number;
  maxTtlSeconds: number;
  fetchTimeoutSeconds: number;
  maxResponseBytes: number;
  allowPrivateNetworkOrigins: readonly string[];
}

const LOCAL_LIMIT = 1024;
const ACCEPT = 'application/statuslist+jwt, application/vc+jwt';

/** What one fetch of a list answers; `headers` (lower-case names) when the fetcher reports response headers. */
export interface FetchedStatusList {
  status: number;
  contentType: string;
  body: string;
  headers?: Readonly<Record<string, string | string[] | undefined>>;
}

/** The SSRF-safe fetch of the list (outbound/safe-fetch); replaceable by one that reports response headers. */
export type StatusListFetcher = (
  uri: string,
  options: Parameters<typeof safeFetchText>[1],
) => Promise<FetchedStatusList>;

const header = (response: FetchedStatusList, name: string): string | null => {
  const value = response.headers?.[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? null);
};

export class CachedStatusListSource implements StatusListSource {
  private readonly local = new Map<string, CachedStatusList>();
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(
    private readonly deps: { db: Database; clock: Clock; options: StatusListSourceOptions; fetch?: StatusListFetcher },
  ) {}

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
    const fetchList = this.deps.fetch ?? safeFetchText;
    const response = await fetchList(uri, {
      timeoutMs: options.fetchTimeoutSeconds * 1000,
      maxBytes: options.maxResponseBytes,
      allowPrivateOrigins: options.allowPrivateNetworkOrigins,
      accept: ACCEPT,
    });
    if (response.status !== 200) throw new Error(`the status list answered ${response.status}`);
    if (!isStatusListMediaType(response.contentType))
      throw new Error('the status list is not served as application/statuslist+jwt or application/vc+jwt');
    const token = response.body.trim();
    const fetchedAt = this.deps.clock.now();
    const payload = decodeJws(token)?.payload;
    const expiresAt = statusListExpiry({
      fetchedAt,
      ttl: payload?.ttl,
      exp: payload?.exp,
      cacheControl: header(response, 'cache-control'),
      expires: header(response, 'expires'),
      minSeconds: options.minTtlSeconds,
      maxSeconds: options.maxTtlSeconds,
    });
    const entry: CachedStatusList = { uri, token, fetchedAt, expiresAt };
    await this.deps.db.withPlatform((sql) => statusListCacheStore.put(sql, entry));
    this.remember(entry);
    return token;
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
