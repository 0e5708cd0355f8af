import { defineCommand, type ExecutionContext, type PendingAuditEvent, type Sql } from '@tessera/platform';
import { flattenGroups, type ContributionGroup, type FlattenedContribution } from '../domain/contribution.js';
import { sessionNotFound } from '../domain/errors.js';
import type { SessionState } from '../domain/session-machine.js';
import type { IssuanceServices } from '../services.js';
import { sessionStore, type SessionRow } from '../storage/session-store.js';
import {
  applyContribution,
  decideContribution,
  movesSession,
  sealContribution,
  type ContributionMove,
  type SealedContribution,
} from './apply-contribution.js';
import { CONTRIBUTE_ATTRIBUTES } from './ids.js';
import { sessionSummary, type SessionSummary } from './session-view.js';

export interface ContributeInput {
  correlationId: string;
  groups: ContributionGroup[];
}

export type ContributeOutput = SessionSummary & { accepted_attributes: number; accepted_connector_fields: number };

/**
 * POST /sessions/{correlationId}/attributes (001 §4.2): groups become attribute records with provenance in the
 * sealed bag; connector fields are kept apart as operational inputs. The session row is locked for the state move,
 * so contributions from several processes queue; each writes rows of its own.
 */
export const contributeAttributes = (s: IssuanceServices) =>
  defineCommand<ContributeInput, ContributeOutput>({
    id: CONTRIBUTE_ATTRIBUTES,
    access: 'write',
    businessIds: (input, output) => ({
      correlationId: input.correlationId,
      contributors: [...new Set(input.groups.map((g) => g.contributorId))].join(','),
      ...(output ? { attributes: String(output.accepted_attributes), status: output.status } : {}),
    }),
    run: (ctx, input) => runContribution(s, ctx, input.correlationId, flattenGroups(input.groups)),
  });

/**
 * The contribution itself, shared with the callback ingress (which pins the phase before flattening) and the
 * connector outcomes. It is the command's unit of work: the rows, the state and the audit event commit together
 * (issue 13 §7), and a refusal rolls back all of them.
 */
export async function runContribution(
  s: IssuanceServices,
  ctx: ExecutionContext,
  correlationId: string,
  contribution: ReturnType<typeof flattenGroups>,
  /** Runs first in the same unit of work (the callback spends its token there: a refusal rolls it back). */
  before?: (sql: Sql, now: Date) => Promise<void>,
): Promise<ContributeOutput> {
  const { tenantId } = ctx;
  const now = s.clock.now();
  // Sealed before the unit of work, in the default mode (re-sealed inside for a session of another mode): the
  // session row stays locked, and the connection held, only for the statements.
  const sealed = await sealContribution(s.sealer, tenantId, contribution, 'TENANT_ENVELOPE', now);
  // The command's event is staged by the statement that locks the session (the contribution's hot path keeps its
  // round trips), and known committed once the unit has.
  const audit = ctx.auditIntent();
  const attempt = before
    ? null
    : await contributeInOneStatement(s, tenantId, correlationId, contribution, sealed, audit.event, now);
  if (attempt === 'not found') throw sessionNotFound();
  const move =
    attempt ?? (await contributeLocked(s, tenantId, correlationId, contribution, sealed, audit.event, now, before));
  audit.committed();
  return {
    ...sessionSummary(move.session, move.state),
    accepted_attributes: contribution.attributes.length,
    accepted_connector_fields: new Set(contribution.connectorFields.map((f) => f.name)).size,
  };
}

/** What a contribution did: the session row as locked, and the state it moved to. */
interface Contributed {
  session: SessionRow;
  state: SessionState;
}

/** Tries of the one-statement contribution before the locked unit of work takes over (each retry: a fresh row). */
const ONE_STATEMENT_TRIES = 2;

/**
 * The contribution as one statement in a tenant session (issue 18: one round trip where the locked unit of work
 * takes four): decided from the session row this process saw last (or reads it), then written by
 * sessionStore.contributeIfCurrent only if that row is still current under the session's lock; else decided again
 * from the row the statement answers. Null: left to the locked unit of work (a session of another encryption mode,
 * one whose required paths are not known yet, a refusal, which is decided there on the locked row, or a row that
 * kept changing under concurrent contributors).
 */
async function contributeInOneStatement(
  s: IssuanceServices,
  tenantId: string,
  correlationId: string,
  contribution: FlattenedContribution,
  sealed: SealedContribution,
  auditEvent: PendingAuditEvent | null,
  now: Date,
): Promise<Contributed | 'not found' | null> {
  return s.platform.db.withTenantSession(tenantId, async (sql) => {
    let session = s.sessionHints.get(tenantId, correlationId) ?? (await sessionStore.getLive(sql, correlationId, now));
    for (let i = 0; i < ONE_STATEMENT_TRIES; i++) {
      if (!session) return 'not found';
      const present = session.presentRequiredPaths;
      if (present === null || session.encryptionMode !== sealed.mode) return null;
      let move: ContributionMove;
      try {
        move = decideContribution(session, present, contribution);
      } catch {
        return null;
      }
      const result = await sessionStore.contributeIfCurrent(
        sql,
        correlationId,
        now,
        { state: session.state, presentRequiredPaths: present },
        { changed: movesSession(session, move), ...move },
        sealed,
        auditEvent,
      );
      if (!result) {
        s.sessionHints.forget(tenantId, correlationId);
        return 'not found';
      }
      if (result.applied) {
        s.sessionHints.set(tenantId, { ...result.session, ...move });
        return { session: result.session, state: move.state };
      }
      session = result.session;
      s.sessionHints.set(tenantId, session);
    }
    return null;
  });
}

/**
 * The contribution as a unit of work that locks the session, writes the rows, reads the required paths present,
 * then moves the state: for a callback (its token is spent in the same unit), a session of another encryption mode
 * or whose required paths are not known yet, and a refusal.
 */
async function contributeLocked(
  s: IssuanceServices,
  tenantId: string,
  correlationId: string,
  contribution: FlattenedContribution,
  sealed: SealedContribution,
  auditEvent: PendingAuditEvent | null,
  now: Date,
  before?: (sql: Sql, now: Date) => Promise<void>,
): Promise<Contributed> {
  const contributed = await s.platform.db.withTenant(tenantId, async (sql) => {
    await before?.(sql, now);
    const locked = await sessionStore.lockForContribution(sql, correlationId, now, sealed, auditEvent);
    if (!locked) throw sessionNotFound();
    const { session } = locked;
    // The machine decides after the rows went in with the lock: a refusal throws, and the unit rolls them back.
    const move = await applyContribution(sql, s.sealer, tenantId, session, contribution, now, {
      sealed,
      written: locked.written,
    });
    // A contribution that moves nothing (a known contributor adding no required path) leaves the session row alone.
    if (movesSession(session, move))
      await sessionStore.saveContribution(sql, session.id, move.state, move.presentRequiredPaths, now);
    return { session, move };
  });
  s.sessionHints.set(tenantId, { ...contributed.session, ...contributed.move });
  return { session: contributed.session, state: contributed.move.state };
}
