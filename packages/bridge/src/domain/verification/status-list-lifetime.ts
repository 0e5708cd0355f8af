/**
 * How long a fetched status list may be used (Token Status List §8.3 caching, §5.1 `ttl`, `exp`; RFC 9111 §4.2.1
 * freshness). Pure: the caller passes what it fetched and when.
 *
 * - The list's own `ttl` (seconds) and the HTTP freshness (`Cache-Control: max-age`, else `Expires`; `no-store`
 *   and `no-cache` give none) each bound the use; the shortest applies. Neither given: the configured maximum.
 * - The result is kept within the configured minimum and maximum (the minimum keeps a burst of sign-ins from
 *   refetching a list that asks for no caching; the maximum is how long a revocation may go unseen).
 * - Never past the list's `exp`, whatever the minimum says: an expired list is not used.
 */
export interface StatusListLifetimeInput {
  fetchedAt: Date;
  /** The list's `ttl` claim, if any. */
  ttl?: unknown;
  /** The list's `exp` claim (seconds since the epoch), if any. */
  exp?: unknown;
  cacheControl?: string | null;
  expires?: string | null;
  minSeconds: number;
  maxSeconds: number;
}

export function statusListExpiry(input: StatusListLifetimeInput): Date {
  const base = input.fetchedAt.getTime();
  const bounds: number[] = [];
  if (typeof input.ttl === 'number' && Number.isFinite(input.ttl) && input.ttl >= 0) bounds.push(input.ttl);
  const http = httpFreshnessSeconds(input.cacheControl ?? null, input.expires ?? null, input.fetchedAt);
  if (http !== null) bounds.push(http);
  const max = Math.max(0, input.maxSeconds);
  const min = Math.min(Math.max(0, input.minSeconds), max);
  const lifetime = bounds.length === 0 ? max : Math.min(max, Math.max(min, Math.min(...bounds)));
  let until = base + lifetime * 1000;
  if (typeof input.exp === 'number' && Number.isFinite(input.exp)) until = Math.min(until, input.exp * 1000);
  return new Date(Math.max(until, base));
}

/**
 * RFC 9111 §4.2.1: `max-age` (and `s-maxage`, the bridge's cache being shared by replicas) before `Expires`;
 * `no-store` / `no-cache` mean no freshness; an `Expires` that does not parse means already stale (§5.3).
 * Null when the response says nothing about freshness.
 */
export function httpFreshnessSeconds(cacheControl: string | null, expires: string | null, now: Date): number | null {
  if (cacheControl) {
    const directives = new Map<string, string | null>();
    for (const part of cacheControl.split(',')) {
      const [name, value] = part.trim().split('=', 2) as [string, string | undefined];
      if (name) directives.set(name.toLowerCase(), value === undefined ? null : value.replace(/^"|"$/g, ''));
    }
    if (directives.has('no-store') || directives.has('no-cache')) return 0;
    for (const name of ['s-maxage', 'max-age']) {
      const value = directives.get(name);
      if (value !== undefined && value !== null && /^\d+$/.test(value)) return Number(value);
    }
  }
  if (expires !== null) {
    const at = Date.parse(expires);
    return Number.isNaN(at) ? 0 : Math.max(0, Math.floor((at - now.getTime()) / 1000));
  }
  return null;
}

/** The media types a status list is served as (Token Status List §5.2, W3C VC-JOSE-COSE §3.1.1). */
export const STATUS_LIST_MEDIA_TYPES = ['application/statuslist+jwt', 'application/vc+jwt'] as const;

/** True when a Content-Type names one of the status-list media types (parameters and case ignored). */
export function isStatusListMediaType(contentType: string): boolean {
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return (STATUS_LIST_MEDIA_TYPES as readonly string[]).includes(type);
}
