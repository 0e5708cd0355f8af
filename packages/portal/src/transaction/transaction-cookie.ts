import { constantTimeEqual, isAppError } from '@tessera/platform';
import type { PortalOptions } from '../options.js';
import { parseTransaction, type LoginTransaction } from './login-transaction.js';

/** Domain separation: a MAC made for this cookie is never valid for anything else signed under the key. */
const CONTEXT = 'tessera-portal-login-transaction.v1.';
const encoder = new TextEncoder();

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return null;
}

/**
 * The login transaction as a cookie: `<key version>.<base64url JSON>.<base64url HMAC-SHA256>`, HttpOnly,
 * SameSite=Lax (sent on the top-level return from the identity provider, not on cross-site posts), Secure and
 * `__Host-` prefixed (RFC 6265bis §4.1.3.2: host-only, path /) when the portal is served over https.
 */
export class TransactionCookies {
  readonly name: string;
  private ensured: Promise<unknown> | null = null;

  constructor(private readonly options: PortalOptions) {
    this.name = options.secureCookies ? '__Host-tessera-signin' : 'tessera-signin';
  }

  private ensureKey(): Promise<unknown> {
    this.ensured ??= this.options.keys
      .ensureSymmetric(this.options.transactionKeyAlias, 'HS256')
      .catch((error: unknown) => {
        this.ensured = null;
        throw error;
      });
    return this.ensured;
  }

  /** The Set-Cookie value that stores `tx` in the browser. */
  async seal(tx: LoginTransaction): Promise<string> {
    await this.ensureKey();
    const payload = Buffer.from(JSON.stringify(tx)).toString('base64url');
    const mac = await this.options.keys.hmac(this.options.transactionKeyAlias, encoder.encode(CONTEXT + payload));
    const value = `${mac.version}.${payload}.${Buffer.from(mac.mac).toString('base64url')}`;
    return this.attributes(value, Math.max(0, tx.expiresAt - Math.floor(this.options.clock.now().getTime() / 1000)));
  }

  /** The transaction of this browser for this tenant, or null when absent, tampered with, expired or foreign. */
  async open(cookieHeader: string | undefined, tenantId: string): Promise<LoginTransaction | null> {
    const raw = readCookie(cookieHeader, this.name);
    const parts = raw?.split('.');
    if (!parts || parts.length !== 3 || !/^[1-9]\d{0,5}$/.test(parts[0]!)) return null;
    const [version, payload, mac] = parts as [string, string, string];
    let expected: Uint8Array;
    try {
      await this.ensureKey();
      expected = (
        await this.options.keys.hmacWithVersion(
          this.options.transactionKeyAlias,
          Number(version),
          encoder.encode(CONTEXT + payload),
        )
      ).mac;
    } catch (error) {
      // An unknown key version: a cookie of another deployment, or a forged one. Anything else (the key store is
      // down) is an outage, not a missing transaction.
      if (isAppError(error) && error.code === 'not_found') return null;
      throw error;
    }
    const given = Buffer.from(mac, 'base64url');
    if (!constantTimeEqual(given, expected)) return null;
    let tx: LoginTransaction | null;
    try {
      tx = parseTransaction(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
    } catch {
      return null;
    }
    if (!tx || tx.tenantId !== tenantId) return null;
    return tx.expiresAt > this.options.clock.now().getTime() / 1000 ? tx : null;
  }

  clear(): string {
    return this.attributes('', 0);
  }

  private attributes(value: string, maxAgeSeconds: number): string {
    return `${this.name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${this.options.secureCookies ? '; Secure' : ''}`;
  }
}
