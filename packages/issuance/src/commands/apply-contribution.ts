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

/** Where a contribution takes a session: its state, and the required attribute paths then present (sorted). */
export interface ContributionMove {
  state: SessionState;
  presentRequiredPaths: string[];
}

/**
 * The machine's decision on a contribution, from the required paths the bag held before it (`present`): throws the
 * refusal (409). Pure: the caller makes sure that what it decides from is current (under the session's lock).
 */
export function decideContribution(
  session: SessionRow,
  present: Iterable<string>,
  contribution: FlattenedContribution,
): ContributionMove {
  const required = requiredPaths(session.pipeline);
  const paths = new Set(present);
  for (const a of contribution.attributes) paths.add(a.path);
  const complete = allComplete(evaluateCompleteness(session.pipeline, paths));
  let state = session.state;
  for (const { contributorId, phase } of contribution.contributors) {
    const moved = transition(session.pipeline, state, { type: 'CONTRIBUTED', contributorId, phase, complete });
    if (!moved.ok) throw conflict(moved.reason);
    state = moved.state;
  }
  return { state, presentRequiredPaths: required.filter((p) => paths.has(p)).sort() };
}

/** Whether a move changes the session row (a known contributor adding no required path changes nothing). */
export const movesSession = (session: SessionRow, move: ContributionMove) =>
  JSON.stringify(move.state) !== JSON.stringify(session.state) ||
  JSON.stringify(move.presentRequiredPaths) !== JSON.stringify(session.presentRequiredPaths);

/**
 * Moves a locked session through a contribution and writes its attributes and connector fields, sealed per the
 * session's encryption mode, in the caller's unit of work. The state is checked first: a refused contribution
 * writes nothing. Answers the move (the caller saves it). `sealed`: the values sealed ahead, used when sealed for
 * the session's mode (else sealed here).
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
): Promise<ContributionMove> {
  // Read after the session's lock, in a statement of its own: it sees what the unit that held the lock before wrote.
  const move = decideContribution(
    session,
    await bagStore.paths(sql, session.id, requiredPaths(session.pipeline)),
    contribution,
  );
  if (options.written) return move;
  const sealed =
    options.sealed?.mode === session.encryptionMode
      ? options.sealed
      : await sealContribution(sealer, tenantId, contribution, session.encryptionMode, now, sql);
  await bagStore.insertAttributes(sql, session.id, sealed.attributes);
  await bagStore.upsertConnectorFields(sql, session.id, sealed.fields);
  return move;
}
