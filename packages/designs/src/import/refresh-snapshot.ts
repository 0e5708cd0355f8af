import type { ExecutionContext } from '@tessera/platform';
import { normalizeDesign } from '../domain/normalize-design.js';
import type { DesignDocument, DesignInput } from '../domain/records.js';
import { MAPPERS } from '../mappers/index.js';
import type { DesignsServices } from '../services.js';
import { designStore } from '../storage/design-store.js';
import { snapshotStore, type Snapshot } from '../storage/snapshot-store.js';
import { fetchSource, mapSource, mappedFor, parseSourceJson, refreshedInput, sha256Hex } from './source-documents.js';

export interface SnapshotRefresh {
  snapshot: Snapshot;
  status: 'UNCHANGED' | 'UPDATED';
  designIds: string[];
}

/**
 * The conditional re-fetch of a snapshot (001 §3: "Snapshot re-fetch uses the stored ETag in a conditional GET").
 * 304, or a 200 with the same bytes: the snapshot and its designs stay (the check time and fresh validators are
 * recorded). A new document: the snapshot is replaced and every design made from it is mapped again, each with its
 * own bindings (which pick its credential configuration), keeping its locked fields. A design whose configuration
 * left the source keeps its fields. Render variants are not touched by a refresh. Null when no such snapshot.
 * Either write is the command's unit of work: it commits with the command's audit event (issue 13 §7).
 */
export async function refreshSnapshot(
  s: DesignsServices,
  ctx: ExecutionContext,
  snapshotId: string,
): Promise<SnapshotRefresh | null> {
  const db = s.platform.db;
  const { tenantId } = ctx;
  const snapshot = await db.withTenantSession(tenantId, (sql) => snapshotStore.get(sql, snapshotId));
  if (!snapshot) return null;
  const mapper = MAPPERS[snapshot.sourceType];
  const response = await fetchSource(s, mapper, snapshot.sourceUrl, snapshot);
  const validators = { etag: response.etag ?? null, lastModified: response.lastModified ?? null };
  const designIds = await db.withTenantSession(tenantId, (sql) => designStore.idsBySnapshot(sql, snapshotId));
  if (response.status === 304 || sha256Hex(response.body) === snapshot.sha256) {
    await ctx.unitOfWork((sql) => snapshotStore.touch(sql, snapshotId, validators, s.clock.now()));
    const current = await db.withTenantSession(tenantId, (sql) => snapshotStore.get(sql, snapshotId));
    return { snapshot: current ?? snapshot, status: 'UNCHANGED', designIds: designIds.map((d) => d.id) };
  }

  const payload = parseSourceJson(response.body);
  const updates: { id: string; kind: Snapshot['entityType']; input: DesignInput; document: DesignDocument }[] = [];
  for (const ref of designIds) {
    const stored = await db.withTenantSession(tenantId, (sql) => designStore.get(sql, ref.kind, ref.id));
    if (!stored) continue;
    const mapped = mappedFor(
      stored.record,
      await mapSource(s, mapper, payload, {
        kind: ref.kind,
        sourceUrl: snapshot.sourceUrl,
        requestBindings: stored.record.bindings,
      }),
    );
    if (!mapped) continue;
    const input = normalizeDesign(refreshedInput(stored.record, mapped.document));
    updates.push({ id: ref.id, kind: ref.kind, input, document: normalizeDesign({ ...input, ...mapped.document }) });
  }
  const now = s.clock.now();
  await ctx.unitOfWork(async (sql) => {
    await snapshotStore.replace(
      sql,
      snapshotId,
      { contentType: response.contentType, payload: response.body, sha256: sha256Hex(response.body), ...validators },
      now,
    );
    for (const u of updates)
      await designStore.update(sql, {
        id: u.id,
        kind: u.kind,
        input: u.input,
        now,
        source: {
          sourceType: snapshot.sourceType,
          sourceUrl: snapshot.sourceUrl,
          snapshotId,
          sourceDocument: u.document,
        },
      });
  });
  const current = await db.withTenantSession(tenantId, (sql) => snapshotStore.get(sql, snapshotId));
  return { snapshot: current!, status: 'UPDATED', designIds: updates.map((u) => u.id) };
}
