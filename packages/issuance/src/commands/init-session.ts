import { randomUUID } from 'node:crypto';
import { defineCommand } from '@tessera/platform';
import { flattenGroups } from '../domain/contribution.js';
import { chooseEncryptionMode, type EncryptionMode } from '../domain/encryption-mode.js';
import { alreadyExists, invalidField } from '../domain/errors.js';
import { normalizePipeline, type PipelineConfiguration, type PipelineConfigurationInput } from '../domain/pipeline.js';
import { allComplete, evaluateCompleteness } from '../domain/completeness.js';
import { initialSession, transition } from '../domain/session-machine.js';
import type { IssuanceServices } from '../services.js';
import { pipelineStore } from '../storage/pipeline-store.js';
import { sessionStore, type SessionRow } from '../storage/session-store.js';
import { applyContribution, movesSession, type ContributionMove } from './apply-contribution.js';
import { INIT_SESSION } from './ids.js';
import { sessionSummary, type SessionSummary } from './session-view.js';

/** The contributor named in the provenance of a session's initial attributes and connector fields. */
export const SESSION_INIT_CONTRIBUTOR = 'session-init';

export interface InitSessionInput {
  /** A stored pipeline's id, or a whole configuration given inline (001 §2.2). */
  pipeline_configuration: string | PipelineConfigurationInput;
  correlation_id?: string | undefined;
  initial_attributes?: { path: string; value: unknown }[] | undefined;
  initial_connector_fields?: Record<string, string> | undefined;
  encryption_mode?: EncryptionMode | undefined;
  ttl_seconds?: number | undefined;
}

/**
 * POST /sessions (001 §4.2, 200): a session on a pipeline, its correlation id unique in the tenant (409 on reuse),
 * its initial attributes and connector fields sealed in the bag in the same unit of work. Initial connector fields
 * satisfy connector inputs before any phase produces them; the pipeline's expected ones must all be given.
 */
export const initSession = (s: IssuanceServices) =>
  defineCommand<InitSessionInput, SessionSummary>({
    id: INIT_SESSION,
    access: 'write',
    businessIds: (input, output) => ({
      ...(output
        ? {
            correlationId: output.correlation_id,
            pipelineId: output.pipeline_id,
            encryptionMode: output.encryption_mode,
          }
        : input.correlation_id === undefined
          ? {}
          : { correlationId: input.correlation_id }),
    }),
    async run(ctx, input) {
      const { sessionTtl } = s.config;
      const ttl = input.ttl_seconds ?? sessionTtl.defaultSeconds;
      if (ttl < sessionTtl.minSeconds || ttl > sessionTtl.maxSeconds)
        throw invalidField(
          'ttl_seconds',
          `ttl_seconds is between ${sessionTtl.minSeconds} and ${sessionTtl.maxSeconds} seconds.`,
        );
      const encryptionMode = chooseEncryptionMode(input.encryption_mode, s.platform.config.profile);
      const initialFields = input.initial_connector_fields ?? {};
      const contribution = flattenGroups([
        {
          contributorId: SESSION_INIT_CONTRIBUTOR,
          phase: 'OID4VCI_START',
          connectorFields: initialFields,
          attributes: input.initial_attributes ?? [],
        },
      ]);
      const now = s.clock.now();

      return ctx.unitOfWork(async (sql) => {
        const pipeline = await resolvePipeline(input.pipeline_configuration, (id) => pipelineStore.get(sql, id));
        const missing = pipeline.expectedInitialConnectorFields.filter((name) => !(name in initialFields));
        if (missing.length > 0)
          throw invalidField(
            'initial_connector_fields',
            `Expected initial connector fields missing: ${missing.join(', ')}.`,
          );
        const row: SessionRow = {
          id: randomUUID(),
          correlationId: input.correlation_id ?? randomUUID(),
          pipeline,
          encryptionMode,
          state: initialSession(),
          failureReason: null,
          createdAt: now,
          updatedAt: now,
          expiresAt: new Date(now.getTime() + ttl * 1000),
          // A new bag holds nothing yet; the initial contribution's move below records what it adds.
          presentRequiredPaths: [],
        };
        if (!(await sessionStore.insert(sql, row)))
          throw alreadyExists('A session with this correlation id exists in the tenant.', 'correlation_id');
        let move: ContributionMove = { state: row.state, presentRequiredPaths: [] };
        if (contribution.attributes.length > 0 || contribution.connectorFields.length > 0) {
          move = await applyContribution(sql, s.sealer, ctx.tenantId, row, contribution, now);
        } else if (allComplete(evaluateCompleteness(pipeline, new Set()))) {
          // A pipeline that asks for no claim is complete from the start.
          const moved = transition(pipeline, row.state, {
            type: 'CONTRIBUTED',
            contributorId: SESSION_INIT_CONTRIBUTOR,
            phase: 'OID4VCI_START',
            complete: true,
          });
          if (moved.ok) move = { ...move, state: moved.state };
        }
        const { state } = move;
        if (movesSession(row, move))
          await sessionStore.saveContribution(sql, row.id, state, move.presentRequiredPaths, now);
        return sessionSummary(row, state);
      });
    },
  });

async function resolvePipeline(
  given: string | PipelineConfigurationInput,
  load: (id: string) => Promise<{ configuration: PipelineConfiguration } | null>,
): Promise<PipelineConfiguration> {
  if (typeof given !== 'string') return normalizePipeline(given);
  const stored = await load(given);
  if (!stored) throw invalidField('pipeline_configuration', 'No stored pipeline configuration has this id.');
  return stored.configuration;
}
