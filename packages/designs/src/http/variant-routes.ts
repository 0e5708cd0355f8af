import { commandContext, type RoleApp } from '@tessera/platform';
import type { Static } from 'typebox';
import Type from 'typebox';
import {
  createRenderVariant,
  deleteRenderVariant,
  getRenderVariant,
  listRenderVariants,
  updateRenderVariant,
} from '../commands/variant-commands.js';
import type { RenderVariantInput } from '../domain/records.js';
import type { DesignsServices } from '../services.js';
import { DESIGNS_BASE_PATH } from './design-routes.js';
import { RenderVariantBody, RenderVariantRecord, VariantIdParams, VariantListQuery } from './schemas.js';

const PATH = `${DESIGNS_BASE_PATH}/render/variants`;

/** The fields of a variant body (server-assigned members sent back are dropped). */
function inputOf(body: Static<typeof RenderVariantBody>): RenderVariantInput {
  const { id: _i, tenantId: _t, createdAt: _c, updatedAt: _u, ...rest } = body;
  return rest as RenderVariantInput;
}

/** Render variants CRUD (001 §4.1 "Render variants"). */
export function registerVariantRoutes(app: RoleApp, s: DesignsServices): void {
  const bus = s.platform.commands;
  const tags = ['render variants'];
  const commands = {
    create: createRenderVariant(s),
    list: listRenderVariants(s),
    get: getRenderVariant(s),
    update: updateRenderVariant(s),
    delete: deleteRenderVariant(s),
  };

  app.post(
    PATH,
    {
      schema: {
        tags,
        summary: 'Create a render variant',
        body: RenderVariantBody,
        response: { 201: RenderVariantRecord },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await bus.execute(commands.create, commandContext(request), inputOf(request.body))),
  );

  app.get(
    PATH,
    {
      schema: {
        tags,
        summary: 'List render variants (optionally of one design or one target)',
        querystring: VariantListQuery,
        response: { 200: Type.Array(RenderVariantRecord) },
      },
    },
    async (request) => bus.execute(commands.list, commandContext(request), request.query),
  );

  app.get(
    `${PATH}/:variantId`,
    {
      schema: {
        tags,
        summary: 'Get a render variant',
        params: VariantIdParams,
        response: { 200: RenderVariantRecord },
      },
    },
    async (request) => bus.execute(commands.get, commandContext(request), request.params),
  );

  app.put(
    `${PATH}/:variantId`,
    {
      schema: {
        tags,
        summary: 'Replace a render variant',
        params: VariantIdParams,
        body: RenderVariantBody,
        response: { 200: RenderVariantRecord },
      },
    },
    async (request) =>
      bus.execute(commands.update, commandContext(request), {
        variantId: request.params.variantId,
        variant: inputOf(request.body),
      }),
  );

  app.delete(
    `${PATH}/:variantId`,
    { schema: { tags, summary: 'Delete a render variant', params: VariantIdParams } },
    async (request, reply) => {
      await bus.execute(commands.delete, commandContext(request), request.params);
      return reply.status(204).send();
    },
  );
}
