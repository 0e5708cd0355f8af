import { CookieJar } from '@tessera/platform/testing';
/**
 * A browser stand-in over fetch for the IDV redirect chain: it follows 3xx answers by hand (each hop can be stopped
 * before it is visited, e.g. at the bridge's callback or at the portal, where nothing listens in the tests), keeps
 * cookies per host and path (RFC 6265 §5.1.4), and submits forms as urlencoded POSTs.
 */
export interface Hop {
  /** The page reached, or the next location when the chain was stopped before visiting it. */
  url: URL;
  /** The answer of the page reached; null when stopped. */
  response: Response | null;
  /** Every URL visited, in order. */
  visited: URL[];
}

export class FetchBrowser {
  private readonly cookies = new CookieJar();

  async request(url: URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.cookies.header(url);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.cookies.store(url, res);
    return res;
  }

  /** Follows redirects until a page answers, or the next location starts with `stopAt` (not visited). */
  async follow(url: string | URL, stopAt: string, init: RequestInit = {}): Promise<Hop> {
    let current = new URL(url);
    const visited = [current];
    let res = await this.request(current, init);
    for (let hops = 0; hops < 10; hops++) {
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { url: current, response: res, visited };
      const next = new URL(location, current);
      if (next.href.startsWith(stopAt)) return { url: next, response: null, visited };
      current = next;
      visited.push(current);
      res = await this.request(current);
    }
    throw new Error('Too many redirects');
  }

  submit(action: URL, fields: Record<string, string>, stopAt: string): Promise<Hop> {
    return this.follow(action, stopAt, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

/** The action of the dev-idp's login form (the first form of its page). */
export function loginFormAction(html: string, pageUrl: URL): URL {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error('No login form on the page');
  return new URL(action, pageUrl);
}
