import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../crypto/constant-time-equal.js';

/** Checks a `nonce` claim against what the server issued; DpopNonceManager is one. */
export interface DpopNonceValidator {
  isValid(nonce: string): boolean | Promise<boolean>;
}

export interface DpopNonceManagerOptions {
  /** At least 32 random octets, the same on every replica. */
  secret: Uint8Array;
  /** Length of one nonce period; a nonce stays valid for one to two periods. Default 60. */
  slotSeconds?: number;
  /** The clock; tests inject one. */
  now?: () => Date;
}

/**
 * Server-provided DPoP nonces (RFC 9449 §8, §9) without server state: a nonce is HMAC-SHA-256(secret, time slot),
 * base64url. The current and the previous slot are accepted, so a nonce lives between one and two slots, and
 * replicas sharing the secret agree without coordination. Send `issueNonce()` in a `DPoP-Nonce` header with
 * `use_dpop_nonce` errors and, when it changed, on successful responses too.
 */
export class DpopNonceManager implements DpopNonceValidator {
  private readonly secret: Buffer;
  private readonly slotMs: number;
  private readonly now: () => Date;

  constructor(options: DpopNonceManagerOptions) {
    if (options.secret.length < 32) throw new TypeError('DPoP nonce secret must be at least 32 bytes');
    const slotSeconds = options.slotSeconds ?? 60;
    if (!Number.isInteger(slotSeconds) || slotSeconds < 1)
      throw new TypeError('slotSeconds must be a positive integer');
    this.secret = Buffer.from(options.secret);
    this.slotMs = slotSeconds * 1000;
    this.now = options.now ?? (() => new Date());
  }

  /** The nonce of the current slot. */
  issueNonce(): string {
    return this.nonceFor(this.currentSlot());
  }

  /** True for the nonce of the current or the previous slot (compared in constant time). */
  isValid(nonce: string): boolean {
    const slot = this.currentSlot();
    const current = constantTimeEqual(nonce, this.nonceFor(slot));
    const previous = constantTimeEqual(nonce, this.nonceFor(slot - 1));
    return current || previous;
  }

  private currentSlot(): number {
    return Math.floor(this.now().getTime() / this.slotMs);
  }

  private nonceFor(slot: number): string {
    return createHmac('sha256', this.secret).update(`dpop-nonce:${slot}`).digest('base64url');
  }
}
