import { createHash } from 'node:crypto';
import type { Clock } from '@tessera/platform';

/**
 * Prepared incremental updates, kept between operation 1 (determine) and operation 4 (merge) of 002 §4.1, keyed by
 * content. Merge prepares the document again from the original and the signature's date and parameters, which
 * gives the same bytes (the preparation depends on nothing else: no random value, no clock); when this process
 * prepared exactly those inputs shortly before, merge takes the update from here instead of parsing the document
 * with pdf-lib a second time, and the digests over the document with it instead of hashing it again (issue 21
 * bench: the SHA-256 of 1 MiB costs what the signature's RSA operation and key-entry read together do).
 *
 * An entry keeps the original document and is taken only for a document equal to it byte for byte (a comparison
 * costs a tenth of a hash). The key, which finds the candidate, is the document's length and a SHA-256 over its
 * last kilobyte (trailer, /ID) and every other input of the preparation: tenant, password, form parameters, signing
 * date, the room reserved for the CMS, the configured fonts and the digest algorithm. Same document, same inputs,
 * same bytes: a hit is what a new preparation would give, and a miss (another replica, an evicted entry) prepares
 * again, so replicas need nothing shared. A failed preparation is never kept (the next attempt fails again).
 * Entries live at most `signatureValiditySeconds` plus the clock skew (a later merge is refused anyway); the map
 * holds at most `limit` of them and `maxBytes` of documents and updates.
 */
export interface PreparedUpdate {
  /** The document the update was prepared for (compared with the one given). */
  original: Buffer;
  update: Buffer;
  byteRange: [number, number, number, number];
  /** SHA-256 of the original (the merge's audit event). */
  documentSha256: Buffer;
  /** The digest of the byte range under the inputs' digest algorithm (the CMS message-digest). */
  messageDigest: Buffer;
}

export interface PreparationInputs {
  tenantId: string;
  password: string | undefined;
  params: unknown;
  signingDate: Date;
  contentsBytes: number;
  fonts: Readonly<Record<string, string>>;
  digestAlgorithm: string;
}

/** How much of the document's end the key covers: its last cross-reference section, trailer and /ID. */
const TAIL_BYTES = 1024;

export class PreparedUpdates {
  private readonly entries = new Map<string, { value: PreparedUpdate; expiresAt: number; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly lifetimeMs: number,
    private readonly limit = 64,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  /** The cache key of a preparation: the document's length, and a SHA-256 over its end and the other inputs. */
  static key(document: Buffer, inputs: PreparationInputs): string {
    const rest = createHash('sha256')
      .update(
        canonicalJson([
          inputs.tenantId,
          inputs.password ?? null,
          inputs.params,
          inputs.signingDate.toISOString(),
          inputs.contentsBytes,
          inputs.fonts,
          inputs.digestAlgorithm,
        ]),
      )
      .update(document.subarray(Math.max(0, document.length - TAIL_BYTES)))
      .digest('base64url');
    return `${document.length}.${rest}`;
  }

  /** The update kept under `key` for exactly this document, if any. */
  get(key: string, document: Buffer): PreparedUpdate | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.clock.now().getTime()) {
      this.remove(key);
      return undefined;
    }
    return entry.value.original.equals(document) ? entry.value : undefined;
  }

  set(key: string, value: PreparedUpdate): void {
    const now = this.clock.now().getTime();
    const bytes = value.original.length + value.update.length;
    this.remove(key);
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { value, expiresAt: now + this.lifetimeMs, bytes });
    this.bytes += bytes;
    for (const [k, entry] of this.entries) {
      if (this.entries.size <= this.limit && this.bytes <= this.maxBytes && entry.expiresAt > now) break;
      this.remove(k);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.entries.delete(key);
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
