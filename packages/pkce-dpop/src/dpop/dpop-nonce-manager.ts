import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../crypto/constant-time-equal.js';

/** Checks a `nonce` claim against what the server issued; DpopNonceManager is one. */
export interface DpopNonceValidator {
  isValid(nonce: string): boolean | Promise<boolean>;
}

/** A keyed MAC (HMAC-SHA-256) whose key is held elsewhere, e.g. by a key manager; the same on every replica. */
export type DpopNonceMac = (data: Uint8Array) => Uint8Array | Promise<Uint8Array>;

export type DpopNonceManagerOptions = (
  | {
      /** At least 32 random octets, the same on every replica. */
      secret: Uint8Array;
      mac?: never;
    }
  | {
      /** The MAC over a slot's label, instead of a secret held here. */
      mac: DpopNonceMac;
      secret?: never;
    }
) & {
  /**
   * Binds the nonces to a scope (a tenant, say) when one key serves several: a nonce of one scope is not valid in
   * another. Not needed when the key itself is per scope.
   */
  scope?: string;
  /** Length of one nonce period; a nonce stays valid for one to two periods. Default 60. */
  slotSeconds?: number;
  /** The clock; tests inject one. */
  now?: () => Date;
};

/**
 * Server-provided DPoP nonces (RFC 9449 §8, §9) without server state: a nonce is HMAC-SHA-256(key, time slot),
 * base64url. The current and the previous slot are accepted, so a nonce lives between one and two slots, and
 * replicas sharing the key agree without coordination. Send `issueNonce()` in a `DPoP-Nonce` header with
 * `use_dpop_nonce` errors and, when it changed, on successful responses too.
 */
export class DpopNonceManager implements DpopNonceValidator {
  private readonly mac: DpopNonceMac;
  private readonly prefix: string;
  private readonly slotMs: number;
  private readonly now: () => Date;

  constructor(options: DpopNonceManagerOptions) {
    if (options.secret !== undefined) {
      if (options.secret.length < 32) throw new TypeError('DPoP nonce secret must be at least 32 bytes');
      const secret = Buffer.from(options.secret);
      this.mac = (data) => createHmac('sha256', secret).update(data).digest();
    } else if (typeof options.mac === 'function') {
      this.mac = options.mac;
    } else {
      throw new TypeError('a DPoP nonce secret or MAC is required');
    }
    const slotSeconds = options.slotSeconds ?? 60;
    if (!Number.isInteger(slotSeconds) || slotSeconds < 1)
      throw new TypeError('slotSeconds must be a positive integer');
    this.prefix = options.scope === undefined ? '' : `${options.scope}\n`;
    this.slotMs = slotSeconds * 1000;
    this.now = options.now ?? (() => new Date());
  }

  /** The nonce of the current slot. */
  issueNonce(): Promise<string> {
    return this.nonceFor(this.currentSlot());
  }

  /** True for the nonce of the current or the previous slot (compared in constant time). */
  async isValid(nonce: string): Promise<boolean> {
    const slot = this.currentSlot();
    const [current, previous] = await Promise.all([this.nonceFor(slot), this.nonceFor(slot - 1)]);
    const a = constantTimeEqual(nonce, current);
    const b = constantTimeEqual(nonce, previous);
    return a || b;
  }

  private currentSlot(): number {
    return Math.floor(this.now().getTime() / this.slotMs);
  }

  private async nonceFor(slot: number): Promise<string> {
    const mac = await this.mac(Buffer.from(`${this.prefix}dpop-nonce:${slot}`, 'utf8'));
    return Buffer.from(mac).toString('base64url');
  }
}
