import { commandContext, type FastifyRequest, type RoleApp } from '@tessera/platform';
import { allocateStatusEntry } from '../commands/allocate-status-entry.js';
import { createStatusList } from '../commands/create-status-list.js';
import { publishStatusList } from '../commands/publish-status-list.js';
import { readIssuerMetadata } from '../commands/read-issuer-metadata.js';
import { readStatusEntry } from '../commands/read-status-entry.js';
import { commandFor, pairWithScope } from '../commands/service-scope.js';
import { updateStatusEntry } from '../commands/update-status-entry.js';
import type { StatusListServices } from '../services.js';
import { acceptJsonOnly } from './json-only.js';
import {
  AllocatedEntryResponse,
  CreateListBody,
  EntryParams,
  EntryResponse,
  IssuerMetadataResponse,
  ListParams,
  UpdatedEntryResponse,
  UpdateEntryBody,
} from './schemas.js';

/** 001 §4.3 (base {base_url}): the status list endpoint and its entries; the public publication. */
export const STATUS_LISTS_PATH = '/vc/status-lists';
export const PUBLICATION_PATH = '/status-lists';

const NO_STORE = { 'cache-control': 'no-store' };

export async function registerRoutes(app: RoleApp, s: StatusListServices): Promise<void> {
  const bus = s.platform.commands;
  const scope = s.config.serviceScope;
  const create = pairWithScope(createStatusList(s), scope);
  const allocate = pairWithScope(allocateStatusEntry(s), scope);
  const update = pairWithScope(updateStatusEntry(s), scope);
  const read = readStatusEntry(s);
  const publish = publishStatusList(s);
  const metadata = readIssuerMetadata(s);
  const principal = (request: FastifyRequest) => request.state.principal;
  const tags = ['status lists'];

  await app.register(async (api: RoleApp) => {
    acceptJsonOnly(api);

    api.post(
      STATUS_LISTS_PATH,
      { schema: { tags, body: CreateListBody, response: { 200: { type: 'string' } } } },
      async (request, reply) => {
        const created = await bus.execute(commandFor(create, principal(request), scope), commandContext(request), {
          body: request.body.statusList,
        });
        // 001 §2.4: 200, application/json, a string holding the signed status list credential (a JSON string: a
        // string payload is sent as it is, so it is encoded here).
        return reply.headers(NO_STORE).type('application/json').send(JSON.stringify(created.token));
      },
    );

    api.post(
      `${STATUS_LISTS_PATH}/:listId/entries`,
      { schema: { tags, params: ListParams, response: { 201: AllocatedEntryResponse } } },
      async (request, reply) => {
        const entry = await bus.execute(commandFor(allocate, principal(request), scope), commandContext(request), {
          listId: request.params.listId,
        });
        return reply.code(201).headers(NO_STORE).send(entry);
      },
    );

    api.put(
      `${STATUS_LISTS_PATH}/:listId/entries/:index`,
      { schema: { tags, params: EntryParams, body: UpdateEntryBody, response: { 200: UpdatedEntryResponse } } },
      async (request, reply) =>
        reply.headers(NO_STORE).send(
          await bus.execute(commandFor(update, principal(request), scope), commandContext(request), {
            ...request.params,
            ...request.body,
          }),
        ),
    );

    api.get(
      `${STATUS_LISTS_PATH}/:listId/entries/:index`,
      { schema: { tags, params: EntryParams, response: { 200: EntryResponse } } },
      async (request, reply) =>
        reply.headers(NO_STORE).send(await bus.execute(read, commandContext(request), request.params)),
    );
  });

  // Public (issue 16 §2): no bearer token, tenant from the host mapping (else the default), rate limited per IP.
  const publicRoute = { auth: 'none' as const };

  app.get(
    `${PUBLICATION_PATH}/:listId`,
    { config: publicRoute, schema: { tags, params: ListParams } },
    async (request, reply) => {
      const publication = await bus.execute(publish, commandContext(request), { listId: request.params.listId });
      const secondsLeft = Math.floor((publication.expiresAt.getTime() - s.clock.now().getTime()) / 1000);
      reply.header('cache-control', `public, max-age=${Math.max(0, Math.min(publication.ttlSeconds, secondsLeft))}`);
      reply.header('etag', publication.etag);
      // RFC 9110 §13.1.2: If-None-Match compares weakly; a match answers 304 without the body.
      if (etagMatches(request.headers['if-none-match'], publication.etag)) return reply.code(304).send();
      return reply.type(publication.mediaType).send(publication.token);
    },
  );

  app.get(
    '/.well-known/jwt-vc-issuer',
    { config: publicRoute, schema: { tags, response: { 200: IssuerMetadataResponse } } },
    async (request, reply) =>
      reply
        .header('cache-control', 'public, max-age=300')
        .send(await bus.execute(metadata, commandContext(request), {})),
  );
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
