import type { Clock } from '@tessera/platform';
import type { KeyEntryRecord } from '../domain/key-entry.js';

/**
 * Key entries read shortly before, for the steps that only read them (determine, create digest, merge: the
 * certificate, the chain and the public key; access level READ). On the embedded database a key-entry read is a
 * statement that costs about what the SHA-256 of a 1 MiB document does, and a PAdES signature read the same entry
 * in each of its three steps (issue 21 bench). The access decision is still taken on every call, against the kept
 * record; operation 3 (create signature, permission SIGN) always reads the entry from the database.
 *
 * An entry is kept `ttlMs` (configuration `keyEntryCacheSeconds`, 0: never): a link (operation 6, the only change
 * of a stored entry) in this process forgets it at once, in another replica it shows here within that time. A
 * missing entry is never kept (an import must be usable at once). At most `limit` entries.
 */
export class RecentKeyEntries {
  private readonly entries = new Map<string, { entry: KeyEntryRecord; expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly limit = 256,
  ) {}

  async read(
    tenantId: string,
    kid: string,
    load: () => Promise<KeyEntryRecord | null>,
  ): Promise<KeyEntryRecord | null> {
    const key = `${tenantId}\u0000${kid}`;
    const now = this.clock.now().getTime();
    const kept = this.entries.get(key);
    if (kept && kept.expiresAt > now) return kept.entry;
    this.entries.delete(key);
    const entry = await load();
    if (entry && this.ttlMs > 0) {
      this.entries.set(key, { entry, expiresAt: now + this.ttlMs });
      if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
    }
    return entry;
  }

  forget(tenantId: string, kid: string): void {
    this.entries.delete(`${tenantId}\u0000${kid}`);
  }
}
