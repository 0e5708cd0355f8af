import { createHash } from 'node:crypto';
import type { Clock } from '@tessera/platform';

/**
 * Prepared incremental updates, kept between operation 1 (determine) and operation 4 (merge) of 002 §4.1, keyed by
 * content. Merge prepares the document again from the original and the signature's date and parameters, which
 * gives the same bytes (the preparation depends on nothing else: no random value, no clock); when this process
 * prepared exactly those inputs shortly before, merge takes the update from here instead of parsing the document
 * with pdf-lib a second time (issue 21 bench).
 *
 * The key is the SHA-256 of the original document (computed anyway: the merge's audit event carries it) and of
 * every other input of the preparation: tenant, password, form parameters, signing date, the room reserved for the
 * CMS and the configured fonts. Same key, same inputs, same bytes: a hit is what a new preparation would give, and
 * a miss (another replica, an evicted entry) prepares again, so replicas need nothing shared. A failed preparation
 * is never kept (the next attempt fails again). Entries live at most `signatureValiditySeconds` plus the clock
 * skew (a later merge is refused anyway) and the map holds at most `limit` of them.
 */
export interface PreparedUpdate {
  update: Buffer;
  byteRange: [number, number, number, number];
}

export interface PreparationInputs {
  tenantId: string;
  password: string | undefined;
  params: unknown;
  signingDate: Date;
  contentsBytes: number;
  fonts: Readonly<Record<string, string>>;
}

export class PreparedUpdates {
  private readonly entries = new Map<string, { value: PreparedUpdate; expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly lifetimeMs: number,
    private readonly limit = 64,
  ) {}

  /** The cache key of a preparation: the document's SHA-256 and a SHA-256 over the other inputs. */
  static key(documentSha256: Buffer, inputs: PreparationInputs): string {
    const rest = createHash('sha256')
      .update(
        canonicalJson([
          inputs.tenantId,
          inputs.password ?? null,
          inputs.params,
          inputs.signingDate.toISOString(),
          inputs.contentsBytes,
          inputs.fonts,
        ]),
      )
      .digest('base64url');
    return `${documentSha256.toString('base64url')}.${rest}`;
  }

  get(key: string): PreparedUpdate | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.clock.now().getTime()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: PreparedUpdate): void {
    const now = this.clock.now().getTime();
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: now + this.lifetimeMs });
    for (const [k, entry] of this.entries) {
      if (this.entries.size <= this.limit && entry.expiresAt > now) break;
      this.entries.delete(k);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

/** JSON with object members in key order, so that equal parameters give equal keys however they were written. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
