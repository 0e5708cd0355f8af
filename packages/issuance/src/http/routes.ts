import { commandContext, type RoleApp, strictBody } from '@tessera/platform';
import { approveSession } from '../commands/approve-session.js';
import { contributeAttributes } from '../commands/contribute-attributes.js';
import { createPipeline } from '../commands/create-pipeline.js';
import { evaluateSessionCompleteness } from '../commands/evaluate-completeness.js';
import { getPipeline } from '../commands/get-pipeline.js';
import { getSessionAttributes } from '../commands/get-session-attributes.js';
import { initSession, type InitSessionInput } from '../commands/init-session.js';
import { listInvocations } from '../commands/list-invocations.js';
import { listPipelines } from '../commands/list-pipelines.js';
import { recordContributorFailure } from '../commands/record-contributor-failure.js';
import { updatePipeline } from '../commands/update-pipeline.js';
import type { ContributionGroup } from '../domain/contribution.js';
import { invalidField } from '../domain/errors.js';
import type { PipelineConfigurationInput } from '../domain/pipeline.js';
import type { IssuanceServices } from '../services.js';
import {
  ApproveBody,
  ContributionBody,
  FailBody,
  InitSessionBody,
  PipelineConfigurationBody,
  PipelineParams,
  SessionParams,
} from './schemas.js';
import { PIPELINE_BASE_PATH, PIPELINE_BODY_LIMIT_BYTES } from './base.js';
import { registerCallbackRoute } from './callback-route.js';

const SESSION = `${PIPELINE_BASE_PATH}/sessions/:correlationId`;
const PIPELINES = `${PIPELINE_BASE_PATH}/pipelines`;

const NO_STORE = { 'cache-control': 'no-store' };

type Params = { correlationId: string };

/**
 * The pipeline backend endpoints (001 §4.2) and the pipeline administration (ours: 001 §2.2 asks for stored
 * configurations and names no path). Each route: its schema, one command through the bus.
 */
export function registerPipelineRoutes(app: RoleApp, s: IssuanceServices): void {
  const bus = s.bus;
  const c = {
    createPipeline: createPipeline(s),
    updatePipeline: updatePipeline(s),
    getPipeline: getPipeline(s),
    listPipelines: listPipelines(s),
    init: initSession(s),
    contribute: contributeAttributes(s),
    attributes: getSessionAttributes(s),
    completeness: evaluateSessionCompleteness(s),
    approve: approveSession(s),
    fail: recordContributorFailure(s),
    invocations: listInvocations(s),
  };
  const body = (schema: typeof PipelineConfigurationBody | typeof ContributionBody | typeof InitSessionBody) => ({
    bodyLimit: PIPELINE_BODY_LIMIT_BYTES,
    preValidation: strictBody(schema),
  });
  const tags = ['issuance pipeline'];

  app.post(
    PIPELINES,
    {
      ...body(PipelineConfigurationBody),
      schema: { tags, operationId: c.createPipeline.id, body: PipelineConfigurationBody },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await bus.execute(c.createPipeline, commandContext(request), request.body as PipelineConfigurationInput)),
  );
  app.get(PIPELINES, { schema: { tags, operationId: c.listPipelines.id } }, async (request) =>
    bus.execute(c.listPipelines, commandContext(request), {}),
  );
  app.get(
    `${PIPELINES}/:pipelineId`,
    { schema: { tags, operationId: c.getPipeline.id, params: PipelineParams } },
    async (request) =>
      bus.execute(c.getPipeline, commandContext(request), {
        pipelineId: (request.params as { pipelineId: string }).pipelineId,
      }),
  );
  app.put(
    `${PIPELINES}/:pipelineId`,
    {
      ...body(PipelineConfigurationBody),
      schema: { tags, operationId: c.updatePipeline.id, params: PipelineParams, body: PipelineConfigurationBody },
    },
    async (request) => {
      const input = request.body as PipelineConfigurationInput;
      const { pipelineId } = request.params as { pipelineId: string };
      if (input.pipelineId !== pipelineId)
        throw invalidField('pipelineId', 'The body names another pipeline than the path.');
      return bus.execute(c.updatePipeline, commandContext(request), input);
    },
  );

  app.post(
    `${PIPELINE_BASE_PATH}/sessions`,
    { ...body(InitSessionBody), schema: { tags, operationId: c.init.id, body: InitSessionBody } },
    async (request, reply) =>
      reply
        .headers(NO_STORE)
        .send(await bus.execute(c.init, commandContext(request), request.body as InitSessionInput)),
  );
  app.post(
    `${SESSION}/attributes`,
    {
      ...body(ContributionBody),
      schema: { tags, operationId: c.contribute.id, params: SessionParams, body: ContributionBody },
    },
    async (request, reply) =>
      reply.headers(NO_STORE).send(
        await bus.execute(c.contribute, commandContext(request), {
          correlationId: (request.params as Params).correlationId,
          groups: (request.body as { groups: ContributionGroup[] }).groups,
        }),
      ),
  );
  app.get(
    `${SESSION}/attributes`,
    { schema: { tags, operationId: c.attributes.id, params: SessionParams } },
    async (request, reply) =>
      reply.headers(NO_STORE).send(
        await bus.execute(c.attributes, commandContext(request), {
          correlationId: (request.params as Params).correlationId,
        }),
      ),
  );
  app.get(
    `${SESSION}/completeness`,
    { schema: { tags, operationId: c.completeness.id, params: SessionParams } },
    async (request, reply) =>
      reply.headers(NO_STORE).send(
        await bus.execute(c.completeness, commandContext(request), {
          correlationId: (request.params as Params).correlationId,
        }),
      ),
  );
  app.post(
    `${SESSION}/approve`,
    {
      preValidation: strictBody(ApproveBody),
      schema: { tags, operationId: c.approve.id, params: SessionParams, body: ApproveBody },
    },
    async (request, reply) =>
      reply.headers(NO_STORE).send(
        await bus.execute(c.approve, commandContext(request), {
          correlationId: (request.params as Params).correlationId,
          ...(request.body as { decision: 'APPROVED' | 'REJECTED'; reason?: string }),
        }),
      ),
  );
  app.post(
    `${SESSION}/fail`,
    {
      preValidation: strictBody(FailBody),
      schema: { tags, operationId: c.fail.id, params: SessionParams, body: FailBody },
    },
    async (request, reply) =>
      reply.headers(NO_STORE).send(
        await bus.execute(c.fail, commandContext(request), {
          correlationId: (request.params as Params).correlationId,
          ...(request.body as { contributor_id: string; reason: string }),
        }),
      ),
  );
  app.get(
    `${SESSION}/invocations`,
    { schema: { tags, operationId: c.invocations.id, params: SessionParams } },
    async (request, reply) =>
      reply.headers(NO_STORE).send(
        await bus.execute(c.invocations, commandContext(request), {
          correlationId: (request.params as Params).correlationId,
        }),
      ),
  );
  registerCallbackRoute(app, s);
}
