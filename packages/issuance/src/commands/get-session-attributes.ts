import { defineCommand } from '@tessera/platform';
import { sessionNotFound } from '../domain/errors.js';
import type { IssuanceServices } from '../services.js';
import { bagStore } from '../storage/bag-store.js';
import { sessionStore } from '../storage/session-store.js';
import { GET_SESSION_ATTRIBUTES } from './ids.js';
import { sessionSummary, type SessionSummary } from './session-view.js';

export interface AttributeView {
  path: string;
  value: unknown;
  contributor_id: string;
  phase: string;
  bundle_id: string | null;
  contributed_at: string;
}

export type SessionAttributesOutput = SessionSummary & {
  attributes: AttributeView[];
  contributors: Record<string, string>;
  /** Deferrable invocations still awaited: contributors bound as DEFERRABLE that have not yet answered. */
  deferrals: { contributor_id: string; phase: string; required: boolean }[];
  /** Names only: connector field values never leave the pipeline (001 §4.2). */
  connector_field_names: string[];
  failure: { kind: string; contributor_id?: string; reason: string | null } | null;
};

/**
 * GET /sessions/{correlationId}/attributes (001 §4.2): the opened attribute bag with provenance, the status,
 * completed phases, deferral entries and the connector field names. Narrow policy (support or audit roles,
 * services.ts); every read is audited by the bus, with identifiers only.
 */
export const getSessionAttributes = (s: IssuanceServices) =>
  defineCommand<{ correlationId: string }, SessionAttributesOutput>({
    id: GET_SESSION_ATTRIBUTES,
    access: 'read',
    businessIds: (input, output) => ({
      correlationId: input.correlationId,
      ...(output ? { attributes: String(output.attributes.length) } : {}),
    }),
    async run(ctx, input) {
      const now = s.clock.now();
      return s.platform.db.withTenant(ctx.tenantId, async (sql) => {
        const session = await sessionStore.getLive(sql, input.correlationId, now);
        if (!session) throw sessionNotFound();
        const stored = await bagStore.attributes(sql, session.id);
        const attributes: AttributeView[] = [];
        for (const a of stored) {
          const cell = { tenantId: ctx.tenantId, table: 'issuance_session_attributes' as const, rowId: a.id };
          attributes.push({
            path: a.path,
            value: await s.sealer.open(session.encryptionMode, cell, a.value, sql),
            contributor_id: a.contributorId,
            phase: a.phase,
            bundle_id: a.bundleId,
            contributed_at: a.contributedAt.toISOString(),
          });
        }
        const { state } = session;
        const deferrals = session.pipeline.invocationBindings
          .filter((b) => b.mode === 'DEFERRABLE' && state.contributors[b.connectorId] === undefined)
          .map((b) => ({ contributor_id: b.connectorId, phase: b.phase, required: b.required }));
        const failure =
          state.failure === null
            ? null
            : state.failure.kind === 'CONTRIBUTOR_FAILED'
              ? { kind: state.failure.kind, contributor_id: state.failure.contributorId, reason: session.failureReason }
              : { kind: state.failure.kind, reason: session.failureReason };
        return {
          ...sessionSummary(session),
          attributes,
          contributors: state.contributors,
          deferrals,
          connector_field_names: await bagStore.connectorFieldNames(sql, session.id),
          failure,
        };
      });
    },
  });
