/**
 * A small browser stand-in over fetch: redirects are followed by hand (each hop can be inspected and stopped at the
 * relying party's redirect URI, where no server listens), and cookies are kept per host and path (RFC 6265 5.1.4).
 */
interface StoredCookie {
  value: string;
  path: string;
}

export class Browser {
  private readonly jar = new Map<string, Map<string, StoredCookie>>();

  private cookieHeader(url: URL): string | undefined {
    const cookies = [...(this.jar.get(url.host) ?? [])].filter(([, c]) => pathMatches(url.pathname, c.path));
    return cookies.length > 0 ? cookies.map(([name, c]) => `${name}=${c.value}`).join('; ') : undefined;
  }

  private store(url: URL, res: Response): void {
    let cookies = this.jar.get(url.host);
    if (!cookies) this.jar.set(url.host, (cookies = new Map()));
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const attr = (key: string) =>
        attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const expired =
        value === '' ||
        attr('max-age') === '0' ||
        (attr('expires') !== undefined && Date.parse(attr('expires')!) < Date.now());
      if (expired) cookies.delete(name);
      else cookies.set(name, { value, path: attr('path') ?? '/' });
    }
  }

  async request(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader(target);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(target, { ...init, headers, redirect: 'manual' });
    this.store(target, res);
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

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}
