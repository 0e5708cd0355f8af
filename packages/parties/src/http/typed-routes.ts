import { commandContext, type RoleApp, strictBody } from '@tessera/platform';
import { createParty } from '../commands/create-party.js';
import { deleteParty } from '../commands/delete-party.js';
import { getParty } from '../commands/get-party.js';
import { listParties } from '../commands/list-parties.js';
import { restCommand } from '../commands/party-command.js';
import { updateParty } from '../commands/update-party.js';
import { parseIncludes } from '../domain/includes.js';
import type { PartyKind } from '../domain/party-kinds.js';
import type { PartyFields } from '../domain/party-record.js';
import { pageRequest } from '../domain/pagination.js';
import type { PartiesServices } from '../services.js';
import { NO_STORE, PARTY_BASE_PATH, PARTY_BODY_LIMIT_BYTES } from './base.js';
import { createBody, IdParams, IncludeQuery, listQuery, updateBody } from './schemas.js';

type ListQuery = {
  limit?: number;
  offset?: number;
  page?: number;
  size?: number;
  total?: boolean;
  origin?: string;
  name?: string;
  displayName?: string;
  organizationUnitId?: string;
  parentOuId?: string;
  q?: string;
};

/**
 * The five operations of a typed resource (001 §4.4): create 201, get, list, update (PUT) and soft delete 204.
 * Each route: its schema, one command (the REST id `party-rest.<resource>.<action>` around `party.<...>`).
 */
export function registerTypedRoutes(app: RoleApp, s: PartiesServices, kind: PartyKind): void {
  const bus = s.bus;
  const base = `${PARTY_BASE_PATH}/${kind.resource}`;
  const commands = {
    create: restCommand(bus, createParty(s, kind)),
    get: restCommand(bus, getParty(s, kind)),
    list: restCommand(bus, listParties(s, kind)),
    update: restCommand(bus, updateParty(s, kind)),
    delete: restCommand(bus, deleteParty(s, kind)),
  };
  const tags = [kind.resource];
  const split = (body: unknown) => {
    const { members, ...fields } = body as PartyFields & { members?: string[] | null };
    return { fields, members };
  };

  app.post(
    base,
    {
      bodyLimit: PARTY_BODY_LIMIT_BYTES,
      preValidation: strictBody(createBody(kind.type)),
      schema: { operationId: commands.create.id, tags, body: createBody(kind.type) },
    },
    async (request, reply) => {
      const { fields, members } = split(request.body);
      const view = await bus.execute(commands.create, commandContext(request), {
        fields,
        members: members ?? undefined,
      });
      return reply
        .status(201)
        .headers({ ...NO_STORE, location: `${base}/${String(view.id)}` })
        .send(view);
    },
  );

  app.get(
    `${base}/:id`,
    { schema: { operationId: commands.get.id, tags, params: IdParams, querystring: IncludeQuery } },
    async (request, reply) => {
      const includes = parseIncludes(request.query.include, kind.includes);
      const view = await bus.execute(commands.get, commandContext(request), { id: request.params.id, includes });
      return reply.headers(NO_STORE).send(view);
    },
  );

  app.get(
    base,
    { schema: { operationId: commands.list.id, tags, querystring: listQuery(kind.type) } },
    async (request, reply) => {
      const { limit, offset, page, size, total, parentOuId, organizationUnitId, ...filter } =
        request.query as ListQuery;
      const list = await bus.execute(commands.list, commandContext(request), {
        filter: { ...filter, organizationUnitId: organizationUnitId ?? parentOuId },
        page: pageRequest({ limit, offset, page, size, total }, s.config),
      });
      return reply.headers(NO_STORE).send(list);
    },
  );

  app.put(
    `${base}/:id`,
    {
      bodyLimit: PARTY_BODY_LIMIT_BYTES,
      preValidation: strictBody(updateBody(kind.type)),
      schema: { operationId: commands.update.id, tags, params: IdParams, body: updateBody(kind.type) },
    },
    async (request, reply) => {
      const { fields, members } = split(request.body);
      const view = await bus.execute(commands.update, commandContext(request), {
        id: request.params.id,
        fields,
        members,
      });
      return reply.headers(NO_STORE).send(view);
    },
  );

  app.delete(
    `${base}/:id`,
    { schema: { operationId: commands.delete.id, tags, params: IdParams } },
    async (request, reply) => {
      await bus.execute(commands.delete, commandContext(request), { id: request.params.id });
      return reply.status(204).headers(NO_STORE).send();
    },
  );
}
