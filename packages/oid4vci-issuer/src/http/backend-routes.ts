import { commandContext, strictBody, type RoleApp } from '@tessera/platform';
import { createOffer } from '../commands/create-offer.js';
import { getOfferStatus } from '../commands/get-offer-status.js';
import { offerInvalid } from '../domain/errors.js';
import { tenantEndpoint } from '../domain/tenant-endpoint.js';
import type { Oid4vciServices } from '../services.js';
import { BackendOfferBody, CorrelationParams } from './schemas.js';

/** 001 §4.2, base /api/oid4vci/v1/backend: the pipeline's envelope `{code, message}` (the role app's family). */
const BASE = '/api/oid4vci/v1/backend/credential/offers';
const NO_STORE = { 'cache-control': 'no-store' };

type Group = {
  connectorFields?: Record<string, string> | undefined;
  semanticAttributeSets?: { bundleId: string; values: Record<string, unknown> }[] | undefined;
  attributes?: { path: string; value: unknown }[] | undefined;
};

/**
 * Pre-seeded groups flattened into the offer (001 §4.2): their attributes and semantic attribute sets (each value
 * under its key, as the pipeline records them) become the session's initial attributes, their connector fields its
 * initial connector fields; a field given twice with different values is refused.
 */
export function flattenPreSeeded(groups: Group[]) {
  const attributes: { path: string; value: unknown }[] = [];
  const fields: Record<string, string> = {};
  groups.forEach((group, i) => {
    for (const set of group.semanticAttributeSets ?? [])
      for (const [path, value] of Object.entries(set.values)) attributes.push({ path, value });
    attributes.push(...(group.attributes ?? []));
    for (const [name, value] of Object.entries(group.connectorFields ?? {})) {
      if (name in fields && fields[name] !== value)
        throw offerInvalid(
          `Connector field ${name} is seeded twice with different values.`,
          `preSeededGroups[${i}].connectorFields`,
        );
      fields[name] = value;
    }
  });
  return { attributes, fields };
}

export function registerBackendOfferRoutes(app: RoleApp, s: Oid4vciServices): void {
  const bus = s.platform.commands;
  const create = createOffer(s);
  const status = getOfferStatus(s);
  const tags = ['issuance pipeline'];

  app.post(
    BASE,
    { preValidation: strictBody(BackendOfferBody), schema: { tags, body: BackendOfferBody } },
    async (request, reply) => {
      const body = request.body;
      const ctx = commandContext(request);
      const endpoint = tenantEndpoint(s.config, ctx.tenantId);
      // issuerId names this tenant's credential issuer; it never chooses another one.
      if (body.issuerId !== undefined && body.issuerId.replace(/\/+$/, '') !== endpoint.credentialIssuer)
        throw offerInvalid("issuerId is not this tenant's credential issuer.", 'issuerId');
      const seeded = flattenPreSeeded(body.preSeededGroups ?? []);
      const preAuthorized = body.preAuthorizedCodeGrant ?? true;
      const result = await bus.execute(create, ctx, {
        credentialConfigurationIds: body.credentialConfigurationIds,
        initialAttributes: seeded.attributes,
        initialConnectorFields: seeded.fields,
        preAuthorized: preAuthorized ? {} : null,
        pinLength: body.pinLength,
        authorizationCode: !preAuthorized,
        ttlSeconds: body.offerTtlSeconds,
        correlationId: body.correlationId,
      });
      return reply.headers(NO_STORE).send({
        correlation_id: result.correlationId,
        credential_offer_uri: result.uri,
        credential_offer: result.offer,
        tx_code: result.txCode,
        ...(result.userPin === undefined ? {} : { user_pin: result.userPin }),
        expires_at: result.expiresAt,
      });
    },
  );

  app.get(`${BASE}/:correlation_id`, { schema: { tags, params: CorrelationParams } }, async (request, reply) =>
    reply
      .headers(NO_STORE)
      .send(await bus.execute(status, commandContext(request), { correlationId: request.params.correlation_id })),
  );
}
