import { commandContext, type RoleApp } from '@tessera/platform';
import type { FastifyReply } from 'fastify';
import Type, { type Static } from 'typebox';
import { createDesign } from '../commands/create-design.js';
import { deleteDesign } from '../commands/delete-design.js';
import { findDesignByBinding } from '../commands/find-design-by-binding.js';
import { getDesign } from '../commands/get-design.js';
import { listDesigns } from '../commands/list-designs.js';
import { updateDesign } from '../commands/update-design.js';
import { importDesign } from '../commands/import-design.js';
import { refreshDesign } from '../commands/refresh-design.js';
import { resolveDesignCommand, type ResolveDesignInput } from '../commands/resolve-design.js';
import type { BindingKey } from '../domain/enums.js';
import type { KindInfo } from '../domain/kinds.js';
import type { DesignInput } from '../domain/records.js';
import type { ResolvedDesign } from '../domain/resolve-design.js';
import type { DesignsServices } from '../services.js';
import {
  BindingParams,
  BindingSchema,
  designBody,
  DesignIdParams,
  designRecord,
  ImportBody,
  ListQuery,
  ResolveBody,
  ResolvedDesignSchema,
} from './schemas.js';

export const DESIGNS_BASE_PATH = '/api/v1/designs';

const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * The 200 body of a resolved design, serialised by the route's response schema once per resolved object and kept
 * as UTF-8 bytes: a resolve answered from the cache (commands/resolve-cache.ts) returns the object it answered
 * before, and sends the same bytes without serialising or encoding them again (a string body would be measured and
 * encoded on every send). Kept as long as the object is (the cache's entry).
 */
const serializedBodies = new WeakMap<ResolvedDesign, Buffer>();
function serializedResolve(reply: FastifyReply, resolved: ResolvedDesign): Buffer {
  let body = serializedBodies.get(resolved);
  if (body === undefined) {
    // The route's serializer (fast-json-stringify of ResolvedDesignSchema) answers a string.
    body = Buffer.from(reply.serialize(resolved) as string, 'utf8');
    serializedBodies.set(resolved, body);
  }
  return body;
}

/** The editable fields of a body (server-assigned members sent back by a client are dropped here). */
function inputOf(body: Static<ReturnType<typeof designBody>>): DesignInput {
  const b = body as Record<string, unknown> & DesignInput;
  const input: DesignInput = { bindings: b.bindings, alias: b.alias, hostingMode: b.hostingMode, displays: b.displays };
  if (b.claims !== undefined) input.claims = b.claims;
  if (b.policyUri !== undefined) input.policyUri = b.policyUri;
  if (b.termsOfServiceUri !== undefined) input.termsOfServiceUri = b.termsOfServiceUri;
  if (b.lockedFields !== undefined) input.lockedFields = b.lockedFields;
  return input;
}

/**
 * The record operations of one design registry (001 §4.1) under /api/v1/designs/{credentials|issuers|verifiers}.
 * Route specificity (001 §4.1 "Routing"): the router prefers static segments, so `find/binding`, `bindings/{k}/{v}`,
 * `import` and `resolve` win over `{designId}`, and the bare collection POST matches only the collection path.
 */
export function registerDesignRoutes(app: RoleApp, s: DesignsServices, info: KindInfo): void {
  const bus = s.platform.commands;
  const base = `${DESIGNS_BASE_PATH}/${info.segment}`;
  const tags = [`${info.noun}s`];
  const Body = designBody(info.kind);
  const Record = designRecord(info.kind);
  const commands = {
    create: createDesign(s, info),
    list: listDesigns(s, info),
    find: findDesignByBinding(s, info, 'find-by-binding'),
    byBinding: findDesignByBinding(s, info, 'get-by-binding'),
    get: getDesign(s, info),
    update: updateDesign(s, info),
    delete: deleteDesign(s, info),
    import: importDesign(s, info),
    refresh: refreshDesign(s, info),
    resolve: resolveDesignCommand(s, info),
  };

  app.post(
    base,
    { schema: { tags, summary: `Create a ${info.noun}`, body: Body, response: { 201: Record } } },
    async (request, reply) =>
      reply.status(201).send(await bus.execute(commands.create, commandContext(request), inputOf(request.body))),
  );

  app.get(
    base,
    { schema: { tags, summary: `List ${info.noun}s`, querystring: ListQuery, response: { 200: Type.Array(Record) } } },
    async (request) => bus.execute(commands.list, commandContext(request), request.query),
  );

  app.post(
    `${base}/find/binding`,
    { schema: { tags, summary: `Find the ${info.noun} of a binding`, body: BindingSchema, response: { 200: Record } } },
    async (request) => bus.execute(commands.find, commandContext(request), request.body),
  );

  app.get(
    `${base}/bindings/:bindingKey/:bindingValue`,
    {
      schema: { tags, summary: `Get the ${info.noun} of a binding`, params: BindingParams, response: { 200: Record } },
    },
    async (request) =>
      bus.execute(commands.byBinding, commandContext(request), {
        key: request.params.bindingKey as BindingKey,
        value: request.params.bindingValue,
      }),
  );

  app.post(
    `${base}/import`,
    {
      schema: {
        tags,
        summary: `Import a ${info.noun} from published metadata`,
        description:
          'Fetches sourceUrl through the SSRF-protected fetcher, keeps a snapshot, maps it. When the source makes ' +
          'several designs (one per credential configuration), the first is answered and `Imported-Design-Ids` ' +
          'lists all.',
        body: ImportBody,
        response: { 201: Record },
      },
    },
    async (request, reply) => {
      const { record, designIds } = await bus.execute(commands.import, commandContext(request), request.body);
      return reply
        .status(201)
        .header('location', `${base}/${record.id}`)
        .header('imported-design-ids', designIds.join(','))
        .send(record);
    },
  );

  app.post(
    `${base}/resolve`,
    {
      schema: {
        tags,
        summary: `Resolve a ${info.noun} with its layers`,
        description: 'Answers 304 when If-None-Match holds the current ETag.',
        body: ResolveBody,
        response: {
          200: ResolvedDesignSchema,
          304: { description: 'Not modified: If-None-Match holds the current ETag', type: 'null' },
        },
      },
    },
    async (request, reply) => {
      const ifNoneMatch = request.headers['if-none-match'];
      // The parsed body is this request's own object (its schema admits no `ifNoneMatch` member): the header joins
      // it rather than a copy being made on every resolve.
      const input = request.body as ResolveDesignInput;
      if (ifNoneMatch !== undefined) input.ifNoneMatch = ifNoneMatch;
      const result = await bus.execute(commands.resolve, commandContext(request), input);
      reply.header('etag', result.etag).header('cache-control', 'private, no-cache');
      // RFC 9110 §15.4.5: a 304 has no content (and so no Content-Length of a body that is not sent).
      if (result.notModified) return (reply as FastifyReply).code(304).removeHeader('content-type').send();
      const untyped = reply as FastifyReply;
      return untyped.type(JSON_UTF8).send(serializedResolve(untyped, result.resolved));
    },
  );

  app.post(
    `${base}/:designId/refresh`,
    {
      schema: {
        tags,
        summary: `Refresh an imported ${info.noun} from its source (conditional GET)`,
        params: DesignIdParams,
        response: { 200: Record },
      },
    },
    async (request) => bus.execute(commands.refresh, commandContext(request), request.params),
  );

  app.get(
    `${base}/:designId`,
    { schema: { tags, summary: `Get a ${info.noun}`, params: DesignIdParams, response: { 200: Record } } },
    async (request) => bus.execute(commands.get, commandContext(request), request.params),
  );

  app.put(
    `${base}/:designId`,
    {
      schema: {
        tags,
        summary: `Replace a ${info.noun}`,
        params: DesignIdParams,
        body: Body,
        response: { 200: Record },
      },
    },
    async (request) =>
      bus.execute(commands.update, commandContext(request), {
        designId: request.params.designId,
        design: inputOf(request.body),
      }),
  );

  app.delete(
    `${base}/:designId`,
    { schema: { tags, summary: `Delete a ${info.noun}`, params: DesignIdParams } },
    async (request, reply) => {
      await bus.execute(commands.delete, commandContext(request), request.params);
      return reply.status(204).send();
    },
  );
}
