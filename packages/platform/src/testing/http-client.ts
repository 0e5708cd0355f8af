import { CookieJar } from './cookie-jar.js';

/**
 * A browser-like HTTP client for the tests: cookies as a browser keeps them (the test kit's CookieJar), redirects
 * followed by hand so that each hop can be checked, and stopped at a given prefix.
 */
export class HttpClient {
  private readonly jar = new CookieJar();
  readonly visited: string[] = [];

  constructor(private readonly headers: Record<string, string> = {}) {}

  cookies(host: string): Map<string, string> {
    return this.jar.cookies(host);
  }

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const u = new URL(url);
    const headers = new Headers(this.headers);
    new Headers(init.headers).forEach((value, name) => headers.set(name, value));
    const cookie = this.jar.header(u);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(u, { ...init, headers, redirect: 'manual' });
    this.jar.store(u, res);
    this.visited.push(`${init.method ?? 'GET'} ${u.origin}${u.pathname} ${res.status}`);
    return res;
  }

  /** Follows redirects until an answer that is not one, or a location that starts with `stopAt` (not fetched). */
  async follow(
    url: string,
    stopAt?: string,
    init: RequestInit = {},
  ): Promise<{ url: string; response: Response | null }> {
    let current = url;
    let res = await this.request(current, init);
    for (let hops = 0; hops < 20; hops++) {
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { url: current, response: res };
      current = new URL(location, current).href;
      if (stopAt && current.startsWith(stopAt)) return { url: current, response: null };
      res = await this.request(current);
    }
    throw new Error('too many redirects');
  }
}
