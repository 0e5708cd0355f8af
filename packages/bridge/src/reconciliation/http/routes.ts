import { commandContext, type RoleApp } from '@tessera/platform';
import { RECONCILIATION_SCOPES } from '../config.js';
import { DELETE_AUXILIARY_DATA, deleteAuxiliaryData } from '../commands/delete-auxiliary-data.js';
import { ERASE_IDENTITY, eraseIdentity } from '../commands/erase-identity.js';
import { GET_AUXILIARY_DATA, getAuxiliaryData } from '../commands/get-auxiliary-data.js';
import { GET_IDENTITY_CLAIMS, getIdentityClaims } from '../commands/get-identity-claims.js';
import { GET_IDENTITY, getIdentity } from '../commands/get-identity.js';
import { LOOKUP_IDENTITY, lookupIdentity } from '../commands/lookup-identity.js';
import { PUT_AUXILIARY_DATA, putAuxiliaryData } from '../commands/put-auxiliary-data.js';
import { MAX_AUXILIARY_BYTES } from '../domain/auxiliary-data.js';
import type { ReconciliationServices } from '../services.js';
import { authenticateReconciliation, callerOf, rateLimitKey } from './authenticate.js';
import { registerStrictJsonBody } from './json-body.js';
import {
  AuxiliaryDataResponse,
  AuxiliaryParams,
  AuxiliaryStoredResponse,
  ClaimsResponse,
  IdentityParams,
  IdentityResponse,
  IdentitySummaryResponse,
  LookupBody,
  PutAuxiliaryBody,
} from './schemas.js';

/** 000 §4.3, §9: the version is in the path. */
export const RECONCILIATION_BASE_PATH = '/api/external/v1/reconciliation';

const IDENTITY = `${RECONCILIATION_BASE_PATH}/:internalIdentityId`;
const AUXILIARY = `${IDENTITY}/auxiliary/:category`;
/** A little above 64 KB: the body wrapping 64 KB of data (and some whitespace) reaches the command's exact check. */
const AUXILIARY_BODY_LIMIT = MAX_AUXILIARY_BYTES + 16 * 1024;
const LOOKUP_BODY_LIMIT = 4096;

/**
 * The seven endpoints of the external reconciliation API (000 §4.3) on the bridge's app, in a scope of their own
 * (strict JSON bodies, route-level authentication, rate limit keyed by the client id). Each route: schema, one
 * command through the command bus.
 */
export async function registerReconciliationRoutes(app: RoleApp, s: ReconciliationServices): Promise<void> {
  const bus = s.platform.commands;
  const commands = {
    lookup: lookupIdentity(s),
    get: getIdentity(s),
    claims: getIdentityClaims(s),
    getAuxiliary: getAuxiliaryData(s),
    putAuxiliary: putAuxiliaryData(s),
    deleteAuxiliary: deleteAuxiliaryData(s),
    erase: eraseIdentity(s),
  };
  const tags = ['external reconciliation'];
  const noStore = { 'cache-control': 'no-store' };
  // The platform's bearer step and tenant resolution are replaced by the route's own (http/authenticate.ts).
  const config = { auth: 'none' as const, tenant: 'none' as const, rateLimit: rateLimitKey };
  const guard = (commandId: string, scope: string) => ({
    config,
    onRequest: authenticateReconciliation(s, { commandId, scope }),
  });
  const { read, write } = RECONCILIATION_SCOPES;

  await app.register(async (scope: RoleApp) => {
    registerStrictJsonBody(scope, s.platform.metrics, AUXILIARY);

    scope.post(
      `${RECONCILIATION_BASE_PATH}/lookup`,
      {
        ...guard(LOOKUP_IDENTITY, read),
        bodyLimit: LOOKUP_BODY_LIMIT,
        schema: { tags, body: LookupBody, response: { 200: IdentitySummaryResponse } },
      },
      async (request, reply) =>
        reply.headers(noStore).send(
          await bus.execute(commands.lookup, commandContext(request), {
            projection: callerOf(request).projection,
            ...request.body,
          }),
        ),
    );

    scope.get(
      IDENTITY,
      { ...guard(GET_IDENTITY, read), schema: { tags, params: IdentityParams, response: { 200: IdentityResponse } } },
      async (request, reply) =>
        reply.headers(noStore).send(
          await bus.execute(commands.get, commandContext(request), {
            projection: callerOf(request).projection,
            internalIdentityId: request.params.internalIdentityId,
          }),
        ),
    );

    scope.get(
      `${IDENTITY}/claims`,
      {
        ...guard(GET_IDENTITY_CLAIMS, read),
        schema: { tags, params: IdentityParams, response: { 200: ClaimsResponse } },
      },
      async (request, reply) =>
        reply.headers(noStore).send(
          await bus.execute(commands.claims, commandContext(request), {
            projection: callerOf(request).projection,
            internalIdentityId: request.params.internalIdentityId,
          }),
        ),
    );

    scope.get(
      AUXILIARY,
      {
        ...guard(GET_AUXILIARY_DATA, read),
        schema: { tags, params: AuxiliaryParams, response: { 200: AuxiliaryDataResponse } },
      },
      async (request, reply) =>
        reply.headers(noStore).send(
          await bus.execute(commands.getAuxiliary, commandContext(request), {
            projection: callerOf(request).projection,
            ...request.params,
          }),
        ),
    );

    scope.put(
      AUXILIARY,
      {
        ...guard(PUT_AUXILIARY_DATA, write),
        bodyLimit: AUXILIARY_BODY_LIMIT,
        schema: {
          tags,
          params: AuxiliaryParams,
          body: PutAuxiliaryBody,
          response: { 200: AuxiliaryStoredResponse, 201: AuxiliaryStoredResponse },
        },
      },
      async (request, reply) => {
        const { status, body } = await bus.execute(commands.putAuxiliary, commandContext(request), {
          projection: callerOf(request).projection,
          ...request.params,
          data: request.body.data,
          expiresAt: request.body.expiresAt,
        });
        return reply.status(status).headers(noStore).send(body);
      },
    );

    scope.delete(
      AUXILIARY,
      { ...guard(DELETE_AUXILIARY_DATA, write), schema: { tags, params: AuxiliaryParams } },
      async (request, reply) => {
        await bus.execute(commands.deleteAuxiliary, commandContext(request), {
          projection: callerOf(request).projection,
          ...request.params,
        });
        return reply.status(204).headers(noStore).send();
      },
    );

    scope.delete(
      IDENTITY,
      { ...guard(ERASE_IDENTITY, RECONCILIATION_SCOPES.delete), schema: { tags, params: IdentityParams } },
      async (request, reply) => {
        await bus.execute(commands.erase, commandContext(request), {
          projection: callerOf(request).projection,
          internalIdentityId: request.params.internalIdentityId,
        });
        return reply.status(204).headers(noStore).send();
      },
    );
  });
}
