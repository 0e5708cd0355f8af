import { CookieJar } from '@tessera/platform/testing';
/**
 * A small browser stand-in over fetch: redirects are followed by hand (each hop can be inspected and stopped at the
 * relying party's redirect URI, where no server listens), and cookies are kept per host and path (RFC 6265 5.1.4).
 */
export class Browser {
  private readonly cookies = new CookieJar();

  async request(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const headers = new Headers(init.headers);
    const cookie = this.cookies.header(target);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(target, { ...init, headers, redirect: 'manual' });
    this.cookies.store(target, res);
    return res;
  }

  /** Follows redirects until a page answers, or the next location starts with `stopAt` (returned unvisited). */
  async follow(
    url: string | URL,
    stopAt: string,
    init: RequestInit = {},
  ): Promise<{ url: URL; response: Response | null }> {
    let current = new URL(url);
    let res = await this.request(current, init);
    for (let hops = 0; hops < 10; hops++) {
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { url: current, response: res };
      const next = new URL(location, current);
      if (next.href.startsWith(stopAt)) return { url: next, response: null };
      current = next;
      res = await this.request(current);
    }
    throw new Error('Too many redirects');
  }

  /** Posts a urlencoded form, as a browser does on submit, and follows the redirects after it. */
  submit(action: string | URL, fields: Record<string, string>, stopAt: string) {
    return this.follow(action, stopAt, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }
}
