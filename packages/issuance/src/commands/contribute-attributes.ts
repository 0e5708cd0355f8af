import { defineCommand, type ExecutionContext, type Sql } from '@tessera/platform';
import { flattenGroups, type ContributionGroup } from '../domain/contribution.js';
import { sessionNotFound } from '../domain/errors.js';
import type { IssuanceServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';
import { applyContribution, sealContribution } from './apply-contribution.js';
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
  const output = await s.platform.db.withTenant(tenantId, async (sql) => {
    await before?.(sql, now);
    const locked = await sessionStore.lockForContribution(sql, correlationId, now, sealed, audit.event);
    if (!locked) throw sessionNotFound();
    const { session } = locked;
    // The machine decides after the rows went in with the lock: a refusal throws, and the unit rolls them back.
    const state = await applyContribution(sql, s.sealer, tenantId, session, contribution, now, {
      sealed,
      written: locked.written,
    });
    // A contribution that moves nothing (a known contributor, still incomplete) leaves the session row alone.
    if (JSON.stringify(state) !== JSON.stringify(session.state))
      await sessionStore.saveState(sql, session.id, state, now);
    return {
      ...sessionSummary(session, state),
      accepted_attributes: contribution.attributes.length,
      accepted_connector_fields: new Set(contribution.connectorFields.map((f) => f.name)).size,
    };
  });
  audit.committed();
  return output;
}
