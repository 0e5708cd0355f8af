import { randomUUID } from 'node:crypto';
import type { Sql } from '@tessera/platform';
import type { BagSealer } from '../crypto/bag-sealer.js';
import { allComplete, evaluateCompleteness, requiredPaths } from '../domain/completeness.js';
import type { FlattenedContribution } from '../domain/contribution.js';
import type { EncryptionMode } from '../domain/encryption-mode.js';
import { conflict } from '../domain/errors.js';
import { transition, type SessionState } from '../domain/session-machine.js';
import { bagStore, type StoredAttribute, type StoredConnectorField } from '../storage/bag-store.js';
import type { SessionRow } from '../storage/session-store.js';

/** A contribution's rows, sealed for one encryption mode, ready to insert. */
export interface SealedContribution {
  mode: EncryptionMode;
  attributes: StoredAttribute[];
  fields: StoredConnectorField[];
}

/**
 * Seals a contribution's attribute and connector field values (each under its own row id, so each bound to its
 * row). `sql`: the open unit of work, if any; without one (sealing ahead of the unit, so that the session row is
 * locked for less time) the key manager reads its keys itself.
 */
export async function sealContribution(
  sealer: BagSealer,
  tenantId: string,
  contribution: FlattenedContribution,
  mode: EncryptionMode,
  now: Date,
  sql?: Sql,
): Promise<SealedContribution> {
  const attributes: StoredAttribute[] = [];
  for (const a of contribution.attributes) {
    const id = randomUUID();
    const cell = { tenantId, table: 'issuance_session_attributes' as const, rowId: id };
    attributes.push({
      id,
      path: a.path,
      value: await sealer.seal(mode, cell, a.value, sql),
      contributorId: a.contributorId,
      phase: a.phase,
      bundleId: a.bundleId,
      contributedAt: now,
    });
  }
  // The last value of a name in one contribution wins, as later contributions replace earlier ones.
  const byName = new Map(contribution.connectorFields.map((f) => [f.name, f]));
  const fields: StoredConnectorField[] = [];
  for (const f of byName.values()) {
    const id = randomUUID();
    const cell = { tenantId, table: 'issuance_session_connector_fields' as const, rowId: id };
    fields.push({
      id,
      name: f.name,
      value: await sealer.seal(mode, cell, f.value, sql),
      contributorId: f.contributorId,
      phase: f.phase,
      contributedAt: now,
    });
  }
  return { mode, attributes, fields };
}

/**
 * Moves a locked session through a contribution and writes its attributes and connector fields, sealed per the
 * session's encryption mode, in the caller's unit of work. The state is checked first: a refused contribution
 * writes nothing. Answers the new state. `sealed`: the values sealed ahead, used when sealed for the session's
 * mode (else sealed here).
 */
export async function applyContribution(
  sql: Sql,
  sealer: BagSealer,
  tenantId: string,
  session: SessionRow,
  contribution: FlattenedContribution,
  now: Date,
  options: {
    sealed?: SealedContribution;
    /** The sealed rows are in the bag already (written with the session's lock, session-store.ts). */
    written?: boolean;
  } = {},
): Promise<SessionState> {
  // Read after the session's lock, in a statement of its own: it sees what the unit that held the lock before wrote.
  const paths = await bagStore.paths(sql, session.id, requiredPaths(session.pipeline));
  for (const a of contribution.attributes) paths.add(a.path);
  const complete = allComplete(evaluateCompleteness(session.pipeline, paths));
  let state = session.state;
  for (const { contributorId, phase } of contribution.contributors) {
    const moved = transition(session.pipeline, state, { type: 'CONTRIBUTED', contributorId, phase, complete });
    if (!moved.ok) throw conflict(moved.reason);
    state = moved.state;
  }
  if (options.written) return state;
  const sealed =
    options.sealed?.mode === session.encryptionMode
      ? options.sealed
      : await sealContribution(sealer, tenantId, contribution, session.encryptionMode, now, sql);
  await bagStore.insertAttributes(sql, session.id, sealed.attributes);
  await bagStore.upsertConnectorFields(sql, session.id, sealed.fields);
  return state;
}
