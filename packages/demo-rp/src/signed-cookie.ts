import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '@tessera/platform';

/**
 * The relying party's login transaction (PKCE verifier, state, nonce) between the redirect and the callback, kept in
 * the browser as an HMAC-signed cookie so that the demo needs no storage. HttpOnly, SameSite=Lax: the callback is a
 * top-level GET from the token service and carries it; other sites' requests do not.
 */
export class SignedCookie<T> {
  constructor(
    readonly name: string,
    private readonly secret: Buffer,
    private readonly secure: boolean,
  ) {}

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(`${this.name}.${payload}`).digest();
  }

  serialize(value: T, maxAgeSeconds: number): string {
    const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
    return this.attributes(`${payload}.${this.mac(payload).toString('base64url')}`, maxAgeSeconds);
  }

  read(cookieHeader: string | undefined): T | null {
    const raw = cookieHeader
      ?.split(';')
      .map((part) => part.trim())
      .find((part) => part.startsWith(`${this.name}=`))
      ?.slice(this.name.length + 1);
    const [payload, mac, extra] = raw?.split('.') ?? [];
    if (!payload || !mac || extra !== undefined) return null;
    const given = Buffer.from(mac, 'base64url');
    const expected = this.mac(payload);
    if (!constantTimeEqual(given, expected)) return null;
    try {
      return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as T;
    } catch {
      return null;
    }
  }

  clear(): string {
    return this.attributes('', 0);
  }

  private attributes(value: string, maxAgeSeconds: number): string {
    return `${this.name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${this.secure ? '; Secure' : ''}`;
  }
}
