import { createHash } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import { constantTimeEqual } from '@tessera/platform';

/**
 * Client secrets with an encoder prefix (000 §2.8): `{plain}` for development, `{argon2}` (argon2id, the
 * password-hashing competition winner, through @node-rs/argon2) for production. A secret without a prefix is
 * refused at start, so that a plain secret is always visibly plain.
 */
export type SecretEncoder = 'plain' | 'argon2';

export interface StoredSecret {
  encoder: SecretEncoder;
  value: string;
}

export function parseStoredSecret(text: string): StoredSecret {
  const m = /^\{(plain|argon2)\}(.+)$/s.exec(text);
  if (!m) throw new Error('client-secret must start with an encoder prefix: {plain} or {argon2}');
  return { encoder: m[1] as SecretEncoder, value: m[2]! };
}

/**
 * The stored form of a new secret for production: `{argon2}` and the PHC string of argon2id with the library's
 * defaults (19 MiB, 2 passes, 1 lane: the OWASP minimum), a fresh salt each time. `npm run client-secret -- hash`.
 */
export async function hashClientSecret(secret: string): Promise<string> {
  if (secret.length === 0) throw new Error('the secret is empty');
  return `{argon2}${await argon2Hash(secret)}`;
}

/**
 * Verifies presented secrets. An argon2 verification costs ~12 ms of CPU by design; a successful one is
 * remembered for `cacheSeconds` under SHA-256(stored hash, presented secret), so a busy client pays it once per
 * window. Failures are never cached.
 */
export class ClientSecretVerifier {
  private readonly verified = new Map<string, number>();

  constructor(
    private readonly cacheSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  async verify(stored: StoredSecret, presented: string): Promise<boolean> {
    if (stored.encoder === 'plain') return constantTimeEqual(stored.value, presented);
    const key = createHash('sha256').update(`${stored.value}\u0000${presented}`).digest('base64url');
    const until = this.verified.get(key);
    if (until !== undefined && until > this.now()) return true;
    let ok = false;
    try {
      ok = await argon2Verify(stored.value, presented);
    } catch {
      ok = false;
    }
    if (ok && this.cacheSeconds > 0) {
      if (this.verified.size > 10_000) this.verified.clear();
      this.verified.set(key, this.now() + this.cacheSeconds * 1000);
    }
    return ok;
  }
}
