import { TenantBatcher, type Clock, type Database, type KeyManager } from '@tessera/platform';
import { listNotFound } from '../domain/errors.js';
import { MEDIA_TYPES } from '../domain/list-forms.js';
import type { ListType } from '../domain/list-definition.js';
import { getList, listChunks, type StoredList } from '../storage/list-rows.js';
import {
  getPublication,
  publicationHeads,
  putPublication,
  type PublicationHead,
  type StoredPublication,
} from '../storage/publication-rows.js';
import { assembleStatuses, renderList } from './render-list.js';

/**
 * Publication by lazy re-signing (issue 16 §4; packages/status-lists/README.md): a status change only moves the list's
 * version; the first read that finds the stored signed form older than the list (or past its refresh time, half
 * its validity) signs it again. Re-signing is debounced per list and process: a replica answers from the signed
 * form it holds for `refreshMs` after it signed it or found it current (never longer than the list's ttl), so it
 * looks at a list at most once per interval and signs it at most once, however many reads and changes arrive;
 * concurrent reads share one signing, and changes made while it runs are gathered by the next one. Every replica
 * reads the shared stored form, so a change is visible at every replica's endpoint within `refreshMs`, and to
 * caches within the list's ttl (Cache-Control max-age).
 */
export interface Publication {
  listId: string;
  type: ListType;
  mediaType: string;
  version: string;
  token: string;
  etag: string;
  ttlSeconds: number;
  expiresAt: Date;
}

const MEMO_LIMIT = 64;

/** A signed form this process holds: when it is to be signed again, and when it was last known current. */
interface Held {
  publication: Publication;
  refreshAt: number;
  checkedAt: number;
}

export class ListPublisher {
  private readonly memo = new Map<string, Held>();
  private readonly inflight = new Map<string, Promise<Publication>>();
  /**
   * Concurrent reads of a tenant's lists share one statement for the lists' heads. A read that arrives while such a
   * statement runs waits for the next one, whose snapshot is younger than the read: it still sees every change
   * committed before it arrived.
   */
  private readonly heads: TenantBatcher<string, PublicationHead | null>;

  constructor(
    private readonly deps: {
      db: Database;
      keys: KeyManager;
      clock: Clock;
      uriOf: (tenantId: string, listId: string) => string;
      /** Milliseconds a held signed form is answered without a look at the list (0: every read looks). */
      refreshMs: number;
    },
  ) {
    this.heads = new TenantBatcher(
      async (tenantId, listIds) => {
        const found = await deps.db.withTenantSession(tenantId, (sql) => publicationHeads(sql, [...new Set(listIds)]));
        return listIds.map((listId) => ({ status: 'fulfilled', value: found.get(listId) ?? null }));
      },
      { maxBatchSize: 256 },
    );
  }

  /** The current signed form of the list, signing it again when it is outdated. */
  async current(tenantId: string, listId: string): Promise<Publication> {
    const { db, clock } = this.deps;
    const key = `${tenantId}\n${listId}`;
    const now = clock.now().getTime();
    const held = this.memo.get(key);
    if (held && now < held.refreshAt && now - held.checkedAt < this.freshFor(held.publication)) return held.publication;
    const head = await this.heads.load(tenantId, listId);
    if (!head) throw listNotFound();
    const published = head.published;
    if (published && published.version === head.version && published.refreshAt.getTime() > now) {
      if (held && held.publication.etag === published.etag) {
        held.checkedAt = now;
        return held.publication;
      }
      const stored = await db.withTenantSession(tenantId, (sql) => getPublication(sql, listId));
      if (stored && stored.etag === published.etag) {
        return this.remember(key, toPublication(stored, head.type, head.ttlSeconds), stored.refreshAt, now);
      }
    }
    let signed = await this.signOnce(key, tenantId, listId);
    // A signing that started before the change this read saw does not hold it: one more.
    if (BigInt(signed.version) < BigInt(head.version)) signed = await this.signOnce(key, tenantId, listId);
    return signed;
  }

  /** How long a held form is answered without a look: the configured interval, never past the list's ttl. */
  private freshFor(publication: Publication): number {
    return Math.min(this.deps.refreshMs, publication.ttlSeconds * 1000);
  }

  private signOnce(key: string, tenantId: string, listId: string): Promise<Publication> {
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.sign(key, tenantId, listId).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
  }

  private async sign(key: string, tenantId: string, listId: string): Promise<Publication> {
    const { db, keys, clock } = this.deps;
    // What is signed is at least as new as this moment: the held form counts as current from here.
    const checkedAt = clock.now().getTime();
    // The version is read before the statuses, each statement with a snapshot of its own (read committed): what is
    // signed is at least as new as the version it is labelled. No transaction is needed for that, so none is
    // opened (two round trips fewer per signing).
    const loaded = await db.withTenantSession(tenantId, async (sql) => {
      const list = await getList(sql, listId);
      return list ? { list, chunks: await listChunks(sql, listId) } : null;
    });
    if (!loaded) throw listNotFound();
    const { list, chunks } = loaded;
    const now = clock.now();
    const rendered = await renderList(
      keys,
      list,
      assembleStatuses(list, chunks),
      this.deps.uriOf(tenantId, listId),
      now,
    );
    const stored = publicationRecord(list, rendered, now);
    await db.withTenantSession(tenantId, (sql) => putPublication(sql, stored));
    return this.remember(key, toPublication(stored, list.type, list.ttlSeconds), stored.refreshAt, checkedAt);
  }

  private remember(key: string, publication: Publication, refreshAt: Date, checkedAt: number): Publication {
    this.memo.delete(key);
    if (this.memo.size >= MEMO_LIMIT) this.memo.delete(this.memo.keys().next().value!);
    this.memo.set(key, { publication, refreshAt: refreshAt.getTime(), checkedAt });
    return publication;
  }
}

/** The stored record of a signed form: it is signed again after half its validity. */
export function publicationRecord(
  list: StoredList,
  rendered: { token: string; etag: string; iat: number; exp: number },
  now: Date,
): StoredPublication {
  return {
    listId: list.listId,
    version: list.version,
    token: rendered.token,
    etag: rendered.etag,
    signedAt: now,
    refreshAt: new Date(now.getTime() + (list.validitySeconds * 1000) / 2),
    expiresAt: new Date(rendered.exp * 1000),
  };
}

const toPublication = (p: StoredPublication, type: ListType, ttlSeconds: number): Publication => ({
  listId: p.listId,
  type,
  mediaType: MEDIA_TYPES[type],
  version: p.version,
  token: p.token,
  etag: p.etag,
  ttlSeconds,
  expiresAt: p.expiresAt,
});
