/**
 * Cookies as a browser keeps them, for the fetch-based user agents of protocol tests: per host and path
 * (RFC 6265 §5.1.4), removed when expired (empty value, Max-Age=0, or an Expires in the past).
 */
interface StoredCookie {
  value: string;
  path: string;
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

export class CookieJar {
  private readonly jar = new Map<string, Map<string, StoredCookie>>();

  /** The Cookie header for a request to `url`, if any cookie applies. */
  header(url: URL): string | undefined {
    const cookies = [...(this.jar.get(url.host) ?? [])].filter(([, c]) => pathMatches(url.pathname, c.path));
    return cookies.length > 0 ? cookies.map(([name, c]) => `${name}=${c.value}`).join('; ') : undefined;
  }

  /** The cookies kept for a host (`host[:port]`), by name. */
  cookies(host: string): Map<string, string> {
    return new Map([...(this.jar.get(host) ?? [])].map(([name, c]) => [name, c.value]));
  }

  /** Keeps the Set-Cookie lines of a response from `url`. */
  store(url: URL, res: Response): void {
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
}
