import { describe, expect, it } from 'vitest';
import { SignedCookie } from './signed-cookie.js';

describe('signed cookie', () => {
  const cookie = new SignedCookie<{ state: string }>('demo-rp-login', Buffer.alloc(32, 7), false);
  const value = (set: string) => set.split(';')[0]!;

  it('round trip, with HttpOnly and SameSite=Lax; Secure only when asked', () => {
    const set = cookie.serialize({ state: 's' }, 60);
    expect(set).toMatch(/^demo-rp-login=[\w-]+\.[\w-]{43}; Path=\/; Max-Age=60; HttpOnly; SameSite=Lax$/);
    expect(cookie.read(`other=1; ${value(set)}`)).toEqual({ state: 's' });
    expect(new SignedCookie('c', Buffer.alloc(32), true).serialize({}, 1)).toContain('; Secure');
  });

  it('refuses a changed value, another key, and garbage', () => {
    const [payload, mac] = value(cookie.serialize({ state: 's' }, 60))
      .slice('demo-rp-login='.length)
      .split('.');
    const changed = Buffer.from(JSON.stringify({ state: 'x' })).toString('base64url');
    expect(cookie.read(`demo-rp-login=${changed}.${mac}`)).toBeNull();
    expect(
      new SignedCookie('demo-rp-login', Buffer.alloc(32, 8), false).read(`demo-rp-login=${payload}.${mac}`),
    ).toBeNull();
    for (const junk of [undefined, '', 'demo-rp-login=', 'demo-rp-login=a.b.c', 'demo-rp-login=a'])
      expect(cookie.read(junk)).toBeNull();
  });
});
