import { createHmac } from 'node:crypto';
import type { DpopNonceValidator } from '@tessera/pkce-dpop';
import { constantTimeEqual, type KeyManager } from '@tessera/platform';

/** The key manager's HS256 key from which a tenant's nonces are derived. */
export const dpopNonceKeyAlias = (tenantId: string) => `token-service:${tenantId}:dpop-nonce`;

const SLOT_SECONDS = 60;

type Mac = (tenantId: string, data: string) => Promise<Buffer>;

/**
 * Server-provided DPoP nonces (RFC 9449 §8, §9) without server state: a nonce is base64url(HMAC-SHA-256(key,
 * time slot)) of 60-second slots, and the current and the previous slot are accepted (a nonce lives 60–120 s).
 * Every replica derives the same nonces, from the key manager's per-tenant HS256 key (shared through the
 * database) or from a configured shared secret. Computing one never opens a unit of work once the key is
 * cached, but it may: callers run it outside their tenant unit.
 */
export class DpopNonces {
  private readonly ensured = new Map<string, Promise<unknown>>();
  private readonly mac: Mac;

  constructor(
    source: { keys: KeyManager } | { secret: Buffer },
    private readonly now: () => Date,
  ) {
    if ('secret' in source) {
      const secret = source.secret;
      if (secret.length < 32) throw new TypeError('the DPoP nonce secret must be at least 32 bytes');
      this.mac = async (tenantId, data) => createHmac('sha256', secret).update(`${tenantId}\n${data}`).digest();
    } else {
      const keys = source.keys;
      this.mac = async (tenantId, data) => {
        const alias = dpopNonceKeyAlias(tenantId);
        await this.ensure(tenantId, () => keys.ensureSymmetric(alias, 'HS256'));
        return Buffer.from((await keys.hmac(alias, Buffer.from(data, 'utf8'))).mac);
      };
    }
  }

  /** The nonce to send in `DPoP-Nonce` now. */
  issue(tenantId: string): Promise<string> {
    return this.nonceFor(tenantId, this.slot());
  }

  /** What verifyDpopProof checks a proof's `nonce` with. */
  validator(tenantId: string): DpopNonceValidator {
    return {
      isValid: async (nonce: string) => {
        const slot = this.slot();
        const [current, previous] = await Promise.all([
          this.nonceFor(tenantId, slot),
          this.nonceFor(tenantId, slot - 1),
        ]);
        const a = constantTimeEqual(nonce, current);
        const b = constantTimeEqual(nonce, previous);
        return a || b;
      },
    };
  }

  private slot(): number {
    return Math.floor(this.now().getTime() / (SLOT_SECONDS * 1000));
  }

  private async nonceFor(tenantId: string, slot: number): Promise<string> {
    return (await this.mac(tenantId, `dpop-nonce:${slot}`)).toString('base64url');
  }

  /** The tenant's key exists (created once, on first use). */
  private ensure(tenantId: string, create: () => Promise<unknown>): Promise<unknown> {
    let pending = this.ensured.get(tenantId);
    if (!pending) {
      pending = create();
      this.ensured.set(tenantId, pending);
      pending.catch(() => this.ensured.delete(tenantId));
    }
    return pending;
  }
}
