import { CookieJar } from '@tessera/platform/testing';

/**
 * A minimal user agent for protocol tests: follows redirects by hand (so each hop can be inspected), keeps
 * cookies as a browser does (CookieJar), and submits the institutional provider's login form like a person would.
 */
export class UserAgent {
  private readonly jar = new CookieJar();
  readonly visited: string[] = [];

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const u = new URL(url);
    const headers = new Headers(init.headers);
    const cookie = this.jar.header(u);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(u, { ...init, headers, redirect: 'manual' });
    this.jar.store(u, res);
    this.visited.push(`${init.method ?? 'GET'} ${u.origin}${u.pathname} → ${res.status}`);
    return res;
  }

  /** Follows redirects from `url` until a response is not a redirect or the location starts with `stopAt`. */
  async follow(
    url: string,
    stopAt: string,
    init: RequestInit = {},
  ): Promise<{ url: string; response: Response | null }> {
    let current = url;
    let res = await this.request(current, init);
    for (let hops = 0; hops < 20; hops++) {
      if (res.status < 300 || res.status >= 400) return { url: current, response: res };
      const location = new URL(res.headers.get('location')!, current).href;
      if (location.startsWith(stopAt)) return { url: location, response: null };
      current = location;
      res = await this.request(current);
    }
    throw new Error('too many redirects');
  }

  /** Fills the provider's login form on `page` and follows on to `stopAt`. */
  async login(
    page: { url: string; response: Response },
    username: string,
    password: string,
    stopAt: string,
    button?: 'abort',
  ) {
    const html = await page.response.text();
    const action = /<form[^>]*action="([^"]+)"/i.exec(html)?.[1] ?? new URL(page.url).pathname;
    const target = new URL(button === 'abort' ? `${action.replace(/\/$/, '')}/abort` : action, page.url).href;
    return this.follow(target, stopAt, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username, password }).toString(),
    });
  }
}
