import { DpopNonceManager, type DpopNonceMac, type DpopNonceValidator } from '@tessera/pkce-dpop';
import type { KeyManager } from '@tessera/platform';

/** The key manager's HS256 key from which a tenant's nonces are derived. */
export const dpopNonceKeyAlias = (tenantId: string) => `token-service:${tenantId}:dpop-nonce`;

/**
 * Server-provided DPoP nonces (RFC 9449 §8, §9) without server state, one @tessera/pkce-dpop `DpopNonceManager`
 * per tenant: a nonce is base64url(HMAC-SHA-256(key, time slot)) of 60-second slots, the current and the previous
 * slot accepted (a nonce lives 60–120 s). Every replica derives the same nonces, from the key manager's per-tenant
 * HS256 key (shared through the database) or from a configured shared secret, bound to the tenant. Computing one
 * never opens a unit of work once the key is cached, but it may: callers run it outside their tenant unit.
 */
export class DpopNonces {
  private readonly managers = new Map<string, DpopNonceManager>();
  private readonly ensured = new Map<string, Promise<unknown>>();

  constructor(
    private readonly source: { keys: KeyManager } | { secret: Buffer },
    private readonly now: () => Date,
  ) {
    if ('secret' in source && source.secret.length < 32)
      throw new TypeError('the DPoP nonce secret must be at least 32 bytes');
  }

  /** The nonce to send in `DPoP-Nonce` now. */
  issue(tenantId: string): Promise<string> {
    return this.managerOf(tenantId).issueNonce();
  }

  /** What verifyDpopProof checks a proof's `nonce` with. */
  validator(tenantId: string): DpopNonceValidator {
    return this.managerOf(tenantId);
  }

  private managerOf(tenantId: string): DpopNonceManager {
    let manager = this.managers.get(tenantId);
    if (!manager) {
      const source = this.source;
      // One secret for every tenant: the tenant is the nonce's scope. A key-manager key is the tenant's own.
      manager =
        'secret' in source
          ? new DpopNonceManager({ secret: source.secret, scope: tenantId, now: this.now })
          : new DpopNonceManager({ mac: this.keyManagerMac(source.keys, tenantId), now: this.now });
      this.managers.set(tenantId, manager);
    }
    return manager;
  }

  private keyManagerMac(keys: KeyManager, tenantId: string): DpopNonceMac {
    const alias = dpopNonceKeyAlias(tenantId);
    return async (data) => {
      await this.ensure(tenantId, () => keys.ensureSymmetric(alias, 'HS256'));
      return (await keys.hmac(alias, Buffer.from(data))).mac;
    };
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
