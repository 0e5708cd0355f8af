import { strictBody, type RoleApp } from '@tessera/platform';
import { addElectronicAddress } from '../commands/add-electronic-address.js';
import { addPhysicalAddress } from '../commands/add-physical-address.js';
import { createRelationship } from '../commands/create-relationship.js';
import { deleteApplicationBinding } from '../commands/delete-application-binding.js';
import { deleteRelationship } from '../commands/delete-relationship.js';
import { getAnyParty } from '../commands/get-any-party.js';
import { getApplicationBinding } from '../commands/get-application-binding.js';
import { getRelationship } from '../commands/get-relationship.js';
import { listAddresses } from '../commands/list-addresses.js';
import { listParties } from '../commands/list-parties.js';
import { listRelationshipTypes } from '../commands/list-relationship-types.js';
import { listRelationships } from '../commands/list-relationships.js';
import { putApplicationBinding } from '../commands/put-application-binding.js';
import { registerRelationshipType } from '../commands/register-relationship-type.js';
import { removeAddress } from '../commands/remove-address.js';
import { updateRelationship } from '../commands/update-relationship.js';
import { parseIncludes } from '../domain/includes.js';
import { INCLUDES } from '../domain/party-kinds.js';
import { pageRequest } from '../domain/pagination.js';
import type { PartiesServices } from '../services.js';
import { NO_STORE, PARTY_BASE_PATH as BASE, PARTY_BODY_LIMIT_BYTES as bodyLimit } from './base.js';
import { runner } from './route-helpers.js';
import {
  AddressParams,
  BindingBody,
  BindingParams,
  ElectronicAddressBody,
  IdParams,
  IncludeQuery,
  PageOnlyQuery,
  PartiesQuery,
  PhysicalAddressBody,
  RelationshipBody,
  RelationshipsQuery,
  RelationshipTypeBody,
  RelationshipUpdateBody,
} from './schemas.js';

/**
 * The resources across party types (001 §4.4): /parties (polymorphic list and get, a party's relationships),
 * /relationships and the relationship type catalog, addresses under /parties/{id}/addresses/electronic and
 * /physical (with DELETE …/{addressId}: paths "not shown", README.md), and identity-to-application bindings.
 */
export function registerPartyRoutes(app: RoleApp, s: PartiesServices): void {
  const command = runner(s);
  const noStore = NO_STORE;

  const list = command(listParties(s, null));
  app.get(
    `${BASE}/parties`,
    { schema: { operationId: list.id, tags: ['parties'], querystring: PartiesQuery } },
    async (request, reply) => {
      const { limit, offset, page, size, total, partyType, partySubtype, ...filter } = request.query;
      const result = await list.run(request, {
        filter: { ...filter, type: partyType, subtype: partySubtype },
        page: pageRequest({ limit, offset, page, size, total }, s.config),
      });
      return reply.headers(noStore).send(result);
    },
  );
  const get = command(getAnyParty(s));
  app.get(
    `${BASE}/parties/:id`,
    { schema: { operationId: get.id, tags: ['parties'], params: IdParams, querystring: IncludeQuery } },
    async (request, reply) =>
      reply
        .headers(noStore)
        .send(
          await get.run(request, { id: request.params.id, includes: parseIncludes(request.query.include, INCLUDES) }),
        ),
  );
  const partyRelationships = command(listRelationships(s, 'parties'));
  app.get(
    `${BASE}/parties/:id/relationships`,
    {
      schema: { operationId: partyRelationships.id, tags: ['parties'], params: IdParams, querystring: PageOnlyQuery },
    },
    async (request, reply) =>
      reply.headers(noStore).send(
        await partyRelationships.run(request, {
          partyId: request.params.id,
          page: pageRequest(request.query, s.config),
        }),
      ),
  );

  const relationships = `${BASE}/relationships`;
  const create = command(createRelationship(s));
  app.post(
    relationships,
    {
      bodyLimit,
      preValidation: strictBody(RelationshipBody),
      schema: { operationId: create.id, tags: ['relationships'], body: RelationshipBody },
    },
    async (request, reply) => {
      const view = await create.run(request, request.body);
      return reply
        .status(201)
        .headers({ ...noStore, location: `${relationships}/${String(view.id)}` })
        .send(view);
    },
  );
  const getOne = command(getRelationship(s));
  app.get(
    `${relationships}/:id`,
    { schema: { operationId: getOne.id, tags: ['relationships'], params: IdParams } },
    async (request, reply) => reply.headers(noStore).send(await getOne.run(request, { id: request.params.id })),
  );
  const listAll = command(listRelationships(s, 'relationships'));
  app.get(
    relationships,
    { schema: { operationId: listAll.id, tags: ['relationships'], querystring: RelationshipsQuery } },
    async (request, reply) => {
      const { partyId, relationshipType, ...paging } = request.query;
      return reply
        .headers(noStore)
        .send(await listAll.run(request, { partyId, relationshipType, page: pageRequest(paging, s.config) }));
    },
  );
  const update = command(updateRelationship(s));
  app.put(
    `${relationships}/:id`,
    {
      bodyLimit,
      preValidation: strictBody(RelationshipUpdateBody),
      schema: { operationId: update.id, tags: ['relationships'], params: IdParams, body: RelationshipUpdateBody },
    },
    async (request, reply) =>
      reply.headers(noStore).send(await update.run(request, { id: request.params.id, patch: request.body })),
  );
  const remove = command(deleteRelationship(s));
  app.delete(
    `${relationships}/:id`,
    { schema: { operationId: remove.id, tags: ['relationships'], params: IdParams } },
    async (request, reply) => {
      await remove.run(request, { id: request.params.id });
      return reply.status(204).headers(noStore).send();
    },
  );

  const types = command(listRelationshipTypes(s));
  app.get(
    `${BASE}/relationship-types`,
    { schema: { operationId: types.id, tags: ['relationships'] } },
    async (request, reply) => reply.headers(noStore).send(await types.run(request, {})),
  );
  const registerType = command(registerRelationshipType(s));
  app.post(
    `${BASE}/relationship-types`,
    {
      bodyLimit,
      preValidation: strictBody(RelationshipTypeBody),
      schema: { operationId: registerType.id, tags: ['relationships'], body: RelationshipTypeBody },
    },
    async (request, reply) =>
      reply
        .status(201)
        .headers(noStore)
        .send(await registerType.run(request, request.body)),
  );

  const electronic = `${BASE}/parties/:id/addresses/electronic`;
  const physical = `${BASE}/parties/:id/addresses/physical`;
  const addElectronic = command(addElectronicAddress(s));
  app.post(
    electronic,
    {
      bodyLimit,
      preValidation: strictBody(ElectronicAddressBody),
      schema: { operationId: addElectronic.id, tags: ['addresses'], params: IdParams, body: ElectronicAddressBody },
    },
    async (request, reply) =>
      reply
        .status(201)
        .headers(noStore)
        .send(await addElectronic.run(request, { partyId: request.params.id, ...request.body })),
  );
  const addPhysical = command(addPhysicalAddress(s));
  app.post(
    physical,
    {
      bodyLimit,
      preValidation: strictBody(PhysicalAddressBody),
      schema: { operationId: addPhysical.id, tags: ['addresses'], params: IdParams, body: PhysicalAddressBody },
    },
    async (request, reply) =>
      reply
        .status(201)
        .headers(noStore)
        .send(await addPhysical.run(request, { partyId: request.params.id, ...request.body })),
  );
  for (const [kind, path] of [
    ['electronic', electronic],
    ['physical', physical],
  ] as const) {
    const listKind = command(listAddresses(s, kind));
    app.get(
      path,
      { schema: { operationId: listKind.id, tags: ['addresses'], params: IdParams } },
      async (request, reply) =>
        reply.headers(noStore).send(await listKind.run(request, { partyId: request.params.id })),
    );
    const removeKind = command(removeAddress(s, kind));
    app.delete(
      `${path}/:addressId`,
      { schema: { operationId: removeKind.id, tags: ['addresses'], params: AddressParams } },
      async (request, reply) => {
        await removeKind.run(request, { partyId: request.params.id, addressId: request.params.addressId });
        return reply.status(204).headers(noStore).send();
      },
    );
  }

  const binding = `${BASE}/identities/:identityId/applications/:applicationId`;
  const getBinding = command(getApplicationBinding(s));
  app.get(
    binding,
    { schema: { operationId: getBinding.id, tags: ['identities'], params: BindingParams } },
    async (request, reply) => reply.headers(noStore).send(await getBinding.run(request, request.params)),
  );
  const putBinding = command(putApplicationBinding(s));
  app.put(
    binding,
    {
      bodyLimit,
      preValidation: strictBody(BindingBody),
      schema: { operationId: putBinding.id, tags: ['identities'], params: BindingParams, body: BindingBody },
    },
    async (request, reply) => {
      const { view, created } = await putBinding.run(request, { ...request.params, ...request.body });
      return reply
        .status(created ? 201 : 200)
        .headers(noStore)
        .send(view);
    },
  );
  const deleteBinding = command(deleteApplicationBinding(s));
  app.delete(
    binding,
    { schema: { operationId: deleteBinding.id, tags: ['identities'], params: BindingParams } },
    async (request, reply) => {
      await deleteBinding.run(request, request.params);
      return reply.status(204).headers(noStore).send();
    },
  );
}
