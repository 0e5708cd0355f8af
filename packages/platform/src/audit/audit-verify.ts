import { compactVerify, importJWK, type JWK } from 'jose';
import { assertTenantId, type Database } from '../db/database.js';
import type { KeyManager } from '../keys/key-manager.js';
import { AUDIT_SIGNING_ALGORITHM, CHECKPOINT_TYPE, auditKeyAlias } from './audit-checkpoints.js';
import { AUDIT_EVENT_COLUMNS, auditEventFromRow, type AuditEventRow, type CheckpointRow } from './audit-rows.js';
import { GENESIS_HASH, eventHash } from './canonical.js';

export type AuditBreakReason =
  | 'hash_mismatch'
  | 'prev_hash_mismatch'
  | 'sequence_gap'
  | 'head_mismatch'
  | 'checkpoint_signature_invalid'
  | 'checkpoint_hash_mismatch';

export type AuditVerifyResult =
  | { ok: true; events: number; checkpoints: number }
  | {
      ok: false;
      /** The first entry that does not hold; eventId is null when that entry is missing (truncated tail). */
      firstBroken: { seq: number; eventId: string | null; reason: AuditBreakReason; expectedSeq?: number };
    };

type CryptoKeyLike = Awaited<ReturnType<typeof importJWK>>;

/**
 * Recomputes a tenant's chain from genesis, streaming it in batches of `batchEvents`, and checks that it ends at the
 * head; then checks every checkpoint's signature and that it signs the chain's hash at its sequence number. Answers
 * the first entry that does not hold.
 */
export async function verifyAuditChain(
  deps: { db: Database; keys: KeyManager; batchEvents: number },
  tenantId: string,
): Promise<AuditVerifyResult> {
  assertTenantId(tenantId);
  const { db } = deps;
  // Head and highest sequence number from one statement, so from one snapshot: later appends only extend it.
  const anchor = await db.withTenant(tenantId, async (sql) => {
    const head = await sql.query<{
      head_seq: number | string | null;
      head_hash: string | null;
      max_seq: number | string | null;
    }>(
      `SELECT (SELECT seq FROM audit_heads) AS head_seq, (SELECT hash FROM audit_heads) AS head_hash,
              (SELECT max(seq) FROM audit_events) AS max_seq`,
    );
    const h = head.rows[0]!;
    const headSeq = h.head_seq === null ? 0 : Number(h.head_seq);
    const checkpoints = await sql.query<CheckpointRow>(
      'SELECT seq, hash, signature, kid FROM audit_checkpoints WHERE seq <= $1 ORDER BY seq',
      [Math.max(headSeq, Number(h.max_seq ?? 0))],
    );
    return {
      headSeq,
      headHash: h.head_hash ?? GENESIS_HASH,
      maxSeq: Number(h.max_seq ?? 0),
      checkpoints: checkpoints.rows,
    };
  });
  const end = Math.max(anchor.headSeq, anchor.maxSeq);
  const wanted = new Set(anchor.checkpoints.map((c) => Number(c.seq)));
  wanted.add(anchor.headSeq);
  const chainAt = new Map<number, { hash: string; eventId: string }>();

  let expected = 1;
  let prevHash = GENESIS_HASH;
  for (;;) {
    const batch = await db.withTenant(tenantId, (sql) =>
      sql.query<AuditEventRow>(
        `SELECT ${AUDIT_EVENT_COLUMNS} FROM audit_events WHERE seq >= $1 AND seq <= $2 ORDER BY seq LIMIT $3`,
        [expected, end, deps.batchEvents],
      ),
    );
    for (const row of batch.rows) {
      const event = auditEventFromRow(row);
      if (event.seq !== expected) return broken(event.seq, event.eventId, 'sequence_gap', expected);
      if (event.prevHash !== prevHash) return broken(event.seq, event.eventId, 'prev_hash_mismatch');
      if (eventHash(prevHash, event) !== event.hash) return broken(event.seq, event.eventId, 'hash_mismatch');
      if (wanted.has(event.seq)) chainAt.set(event.seq, { hash: event.hash, eventId: event.eventId });
      prevHash = event.hash;
      expected += 1;
    }
    if (batch.rows.length < deps.batchEvents) break;
  }
  const count = expected - 1;
  // Events removed from the end leave the head pointing past the chain; a head moved back leaves events past it.
  if (count < anchor.headSeq) return broken(expected, null, 'sequence_gap', expected);
  const atHead = anchor.headSeq === 0 ? { hash: GENESIS_HASH, eventId: null } : chainAt.get(anchor.headSeq)!;
  if (atHead.hash !== anchor.headHash || anchor.maxSeq > anchor.headSeq)
    return broken(anchor.headSeq, atHead.eventId, 'head_mismatch');

  const keys = new Map<string, CryptoKeyLike | null>();
  // Only a version of the tenant's own audit key may sign its checkpoints (a kid of any other key is refused).
  const auditKids =
    anchor.checkpoints.length === 0
      ? new Set<string>()
      : new Set((await deps.keys.list()).filter((k) => k.alias === auditKeyAlias(tenantId)).map((k) => k.kid));
  for (const row of anchor.checkpoints) {
    const seq = Number(row.seq);
    const at = chainAt.get(seq);
    const payload = auditKids.has(row.kid) ? await checkpointPayload(deps.keys, row, keys) : null;
    if (!payload) return broken(seq, at?.eventId ?? null, 'checkpoint_signature_invalid');
    const attests = payload.tenant === tenantId && payload.seq === seq && payload.hash === row.hash;
    if (!attests || !at || at.hash !== row.hash) return broken(seq, at?.eventId ?? null, 'checkpoint_hash_mismatch');
  }
  return { ok: true, events: count, checkpoints: anchor.checkpoints.length };
}

/** The signed payload of a checkpoint, or null when its signature does not verify under the key its kid names. */
async function checkpointPayload(
  keyManager: KeyManager,
  row: CheckpointRow,
  keys: Map<string, CryptoKeyLike | null>,
): Promise<{ tenant?: unknown; seq?: unknown; hash?: unknown } | null> {
  if (!keys.has(row.kid)) {
    const jwk: JWK | null = await keyManager.publicJwkByKid(row.kid);
    keys.set(row.kid, jwk ? await importJWK(jwk, AUDIT_SIGNING_ALGORITHM).catch(() => null) : null);
  }
  const key = keys.get(row.kid);
  if (!key) return null;
  try {
    const { payload, protectedHeader } = await compactVerify(row.signature, key, {
      algorithms: [AUDIT_SIGNING_ALGORITHM],
    });
    if (protectedHeader.kid !== row.kid || protectedHeader.typ !== CHECKPOINT_TYPE) return null;
    const parsed: unknown = JSON.parse(new TextDecoder().decode(payload));
    return parsed !== null && typeof parsed === 'object' ? parsed : null;
  } catch {
    return null;
  }
}

function broken(
  seq: number,
  eventId: string | null,
  reason: AuditBreakReason,
  expectedSeq?: number,
): AuditVerifyResult {
  return {
    ok: false,
    firstBroken: {
      seq,
      eventId,
      reason,
      ...(expectedSeq !== undefined && reason === 'sequence_gap' ? { expectedSeq } : {}),
    },
  };
}
