import { strictBody, type RoleApp } from '@tessera/platform';
import { addGroupMember } from '../commands/add-group-member.js';
import { addRegistration } from '../commands/add-registration.js';
import { getLoginConfig } from '../commands/get-login-config.js';
import { listGroupMembers } from '../commands/list-group-members.js';
import { listRegistrations } from '../commands/list-registrations.js';
import { listUnitContents } from '../commands/list-unit-contents.js';
import { putLoginConfig } from '../commands/put-login-config.js';
import { removeGroupMember } from '../commands/remove-group-member.js';
import { replaceGroupMembers } from '../commands/replace-group-members.js';
import { pageRequest, type PageParams } from '../domain/pagination.js';
import type { PartiesServices } from '../services.js';
import { NO_STORE, PARTY_BASE_PATH as BASE, PARTY_BODY_LIMIT_BYTES as bodyLimit } from './base.js';
import { runner } from './route-helpers.js';
import {
  AddMemberBody,
  IdParams,
  LoginConfigBody,
  MemberParams,
  MembersBody,
  PageOnlyQuery,
  RegistrationBody,
} from './schemas.js';

/**
 * The extra operations of the typed resources (001 §4.4): organization registrations, unit children and members,
 * service login configuration, group members. Replace is PUT on the member collection, add is POST on it or PUT on
 * the member (idempotent), remove is DELETE on the member (methods "not shown": README.md).
 */
export function registerSubResourceRoutes(app: RoleApp, s: PartiesServices): void {
  const command = runner(s);
  const page = (query: PageParams) => pageRequest(query, s.config);

  const addReg = command(addRegistration(s));
  app.post(
    `${BASE}/organizations/:id/registrations`,
    {
      bodyLimit,
      preValidation: strictBody(RegistrationBody),
      schema: { operationId: addReg.id, tags: ['organizations'], params: IdParams, body: RegistrationBody },
    },
    async (request, reply) =>
      reply
        .status(201)
        .headers(NO_STORE)
        .send(await addReg.run(request, { organizationId: request.params.id, ...request.body })),
  );
  const listReg = command(listRegistrations(s));
  app.get(
    `${BASE}/organizations/:id/registrations`,
    { schema: { operationId: listReg.id, tags: ['organizations'], params: IdParams } },
    async (request, reply) =>
      reply.headers(NO_STORE).send(await listReg.run(request, { organizationId: request.params.id })),
  );

  for (const contents of ['children', 'members'] as const) {
    const list = command(listUnitContents(s, contents));
    app.get(
      `${BASE}/organizationunits/:id/${contents}`,
      { schema: { operationId: list.id, tags: ['organizationunits'], params: IdParams, querystring: PageOnlyQuery } },
      async (request, reply) =>
        reply.headers(NO_STORE).send(await list.run(request, { unitId: request.params.id, page: page(request.query) })),
    );
  }

  const getConfig = command(getLoginConfig(s));
  app.get(
    `${BASE}/services/:id/login-config`,
    { schema: { operationId: getConfig.id, tags: ['services'], params: IdParams } },
    async (request, reply) =>
      reply.headers(NO_STORE).send(await getConfig.run(request, { serviceId: request.params.id })),
  );
  const putConfig = command(putLoginConfig(s));
  app.put(
    `${BASE}/services/:id/login-config`,
    {
      bodyLimit,
      preValidation: strictBody(LoginConfigBody),
      schema: { operationId: putConfig.id, tags: ['services'], params: IdParams, body: LoginConfigBody },
    },
    async (request, reply) =>
      reply.headers(NO_STORE).send(await putConfig.run(request, { serviceId: request.params.id, patch: request.body })),
  );

  const members = `${BASE}/groups/:id/members`;
  const listMembers = command(listGroupMembers(s));
  app.get(
    members,
    { schema: { operationId: listMembers.id, tags: ['groups'], params: IdParams, querystring: PageOnlyQuery } },
    async (request, reply) =>
      reply
        .headers(NO_STORE)
        .send(await listMembers.run(request, { groupId: request.params.id, page: page(request.query) })),
  );
  const replace = command(replaceGroupMembers(s));
  app.put(
    members,
    {
      bodyLimit,
      preValidation: strictBody(MembersBody),
      schema: { operationId: replace.id, tags: ['groups'], params: IdParams, body: MembersBody },
    },
    async (request, reply) =>
      reply
        .headers(NO_STORE)
        .send(await replace.run(request, { groupId: request.params.id, members: request.body.members })),
  );
  const add = command(addGroupMember(s));
  app.post(
    members,
    {
      bodyLimit,
      preValidation: strictBody(AddMemberBody),
      schema: { operationId: add.id, tags: ['groups'], params: IdParams, body: AddMemberBody },
    },
    async (request, reply) => {
      const { added } = await add.run(request, { groupId: request.params.id, memberId: request.body.memberId });
      return reply
        .status(added ? 201 : 200)
        .headers(NO_STORE)
        .send({ memberId: request.body.memberId, added });
    },
  );
  app.put(
    `${members}/:memberId`,
    { schema: { operationId: `${add.id}-by-id`, tags: ['groups'], params: MemberParams } },
    async (request, reply) => {
      const { added } = await add.run(request, { groupId: request.params.id, memberId: request.params.memberId });
      return reply.headers(NO_STORE).send({ memberId: request.params.memberId, added });
    },
  );
  const remove = command(removeGroupMember(s));
  app.delete(
    `${members}/:memberId`,
    { schema: { operationId: remove.id, tags: ['groups'], params: MemberParams } },
    async (request, reply) => {
      await remove.run(request, { groupId: request.params.id, memberId: request.params.memberId });
      return reply.status(204).headers(NO_STORE).send();
    },
  );
}
