/**
 * A browser-like HTTP client for the tests: cookies per host (name=value, honouring Max-Age=0), redirects followed
 * by hand so that each hop can be checked, and stopped at a given prefix.
 */
export class HttpClient {
  private readonly jar = new Map<string, Map<string, string>>();
  readonly visited: string[] = [];

  constructor(private readonly headers: Record<string, string> = {}) {}

  cookies(host: string): Map<string, string> {
    return this.jar.get(host) ?? new Map();
  }

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const u = new URL(url);
    const headers = new Headers({ ...this.headers, ...(init.headers as Record<string, string> | undefined) });
    const cookies = this.jar.get(u.host);
    if (cookies && cookies.size > 0) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(u, { ...init, headers, redirect: 'manual' });
    let jar = this.jar.get(u.host);
    if (!jar) this.jar.set(u.host, (jar = new Map()));
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      if (value === '' || /max-age=0(?:;|$)/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
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
