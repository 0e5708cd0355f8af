/**
 * A minimal browser for the federated login of the erasure test: follows redirects by hand, keeps cookies per host,
 * and submits the development provider's login form (packages/dev-idp README "Login page") like a person would.
 */
export class Browser {
  private readonly jar = new Map<string, Map<string, string>>();

  private async request(url: string, init: RequestInit = {}): Promise<Response> {
    const u = new URL(url);
    const headers = new Headers(init.headers);
    const cookies = this.jar.get(u.host);
    if (cookies && cookies.size > 0) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(u, { ...init, headers, redirect: 'manual' });
    let jar = this.jar.get(u.host);
    if (!jar) this.jar.set(u.host, (jar = new Map()));
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0] ?? '';
      const eq = pair.indexOf('=');
      if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    return res;
  }

  /** Follows redirects from `url` until a page (returned) or a location starting with `stopAt` (returned as url). */
  async follow(url: string, stopAt: string, init: RequestInit = {}): Promise<{ url: string; page: Response | null }> {
    let current = url;
    let res = await this.request(current, init);
    for (let hops = 0; hops < 20; hops++) {
      if (res.status < 300 || res.status >= 400) return { url: current, page: res };
      const location = new URL(res.headers.get('location')!, current).href;
      await res.body?.cancel();
      if (location.startsWith(stopAt)) return { url: location, page: null };
      current = location;
      res = await this.request(current);
    }
    throw new Error('too many redirects');
  }

  /** Signs in on the login page at `url` and follows on to `stopAt`; answers the URL it ends at. */
  async signIn(url: string, page: Response, username: string, password: string, stopAt: string): Promise<string> {
    const html = await page.text();
    const action = /<form[^>]*action="([^"]+)"/i.exec(html)?.[1] ?? new URL(url).pathname;
    const back = await this.follow(new URL(action, url).href, stopAt, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username, password }).toString(),
    });
    if (back.page) throw new Error(`the login did not end at the relying party (HTTP ${back.page.status})`);
    return back.url;
  }
}
