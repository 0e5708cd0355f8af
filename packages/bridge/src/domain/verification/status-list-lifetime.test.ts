import { describe, expect, it } from 'vitest';
import { httpFreshnessSeconds, isStatusListMediaType, statusListExpiry } from './status-list-lifetime.js';

const fetchedAt = new Date('2030-01-01T00:00:00Z');
const seconds = (d: Date) => (d.getTime() - fetchedAt.getTime()) / 1000;
const bounds = { fetchedAt, minSeconds: 10, maxSeconds: 300 };

describe('status-list lifetime', () => {
  it("honours the list's ttl within the bounds", () => {
    expect(seconds(statusListExpiry({ ...bounds, ttl: 60 }))).toBe(60);
    expect(seconds(statusListExpiry({ ...bounds, ttl: 3600 }))).toBe(300);
    expect(seconds(statusListExpiry({ ...bounds, ttl: 0 }))).toBe(10);
    expect(seconds(statusListExpiry({ ...bounds }))).toBe(300);
    expect(seconds(statusListExpiry({ ...bounds, ttl: 'x' }))).toBe(300);
  });

  it('honours Cache-Control and Expires, the shortest of them and the ttl applying', () => {
    expect(seconds(statusListExpiry({ ...bounds, ttl: 200, cacheControl: 'public, max-age=45' }))).toBe(45);
    expect(seconds(statusListExpiry({ ...bounds, ttl: 20, cacheControl: 'max-age=45' }))).toBe(20);
    expect(seconds(statusListExpiry({ ...bounds, cacheControl: 'no-cache' }))).toBe(10);
    const in90 = new Date(fetchedAt.getTime() + 90_000).toUTCString();
    expect(seconds(statusListExpiry({ ...bounds, expires: in90 }))).toBe(90);
    // max-age wins over Expires (RFC 9111 §5.3); an unparsable Expires is stale.
    expect(seconds(statusListExpiry({ ...bounds, cacheControl: 'max-age=30', expires: in90 }))).toBe(30);
    expect(seconds(statusListExpiry({ ...bounds, expires: 'soon' }))).toBe(10);
  });

  it("never passes the list's exp, even below the minimum", () => {
    const exp = fetchedAt.getTime() / 1000 + 5;
    expect(seconds(statusListExpiry({ ...bounds, ttl: 60, exp }))).toBe(5);
    expect(seconds(statusListExpiry({ ...bounds, exp: fetchedAt.getTime() / 1000 - 100 }))).toBe(0);
  });

  it('a minimum above the maximum yields the maximum', () => {
    expect(seconds(statusListExpiry({ fetchedAt, minSeconds: 100, maxSeconds: 30, ttl: 0 }))).toBe(30);
  });

  it('reads the freshness directives', () => {
    expect(httpFreshnessSeconds('s-maxage=5, max-age=50', null, fetchedAt)).toBe(5);
    expect(httpFreshnessSeconds('no-store', null, fetchedAt)).toBe(0);
    expect(httpFreshnessSeconds('public', null, fetchedAt)).toBeNull();
    expect(httpFreshnessSeconds(null, null, fetchedAt)).toBeNull();
  });

  it('accepts only the status-list media types', () => {
    expect(isStatusListMediaType('application/statuslist+jwt')).toBe(true);
    expect(isStatusListMediaType('Application/VC+JWT; charset=utf-8')).toBe(true);
    expect(isStatusListMediaType('application/jwt')).toBe(false);
    expect(isStatusListMediaType('text/html')).toBe(false);
    expect(isStatusListMediaType('')).toBe(false);
  });
});
