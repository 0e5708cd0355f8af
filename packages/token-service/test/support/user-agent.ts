import { HttpClient } from '@tessera/platform/testing';

/**
 * A minimal user agent for protocol tests: the test kit's browser-like client (cookies, redirects followed by hand
 * so that each hop can be inspected), which also submits the institutional provider's login form like a person.
 */
export class UserAgent extends HttpClient {
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
