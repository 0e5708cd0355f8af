import { randomUUID } from 'node:crypto';
import { AppError, defineCommand, type JoinedUnit } from '@tessera/platform';
import { offerInvalid } from '../domain/errors.js';
import {
  AUTHORIZATION_CODE_GRANT,
  checkConfigurationIds,
  PRE_AUTHORIZED_GRANT,
  sessionPipeline,
} from '../domain/offer.js';
import { numericPin, randomToken } from '../domain/secrets.js';
import { tenantEndpoint } from '../domain/tenant-endpoint.js';
import type { Oid4vciServices } from '../services.js';
import { offerStore } from '../storage/offer-store.js';
import { CREATE_OFFER } from './ids.js';

/** What both offer endpoints (web application 001 §2.3, backend 001 §4.2) ask of the one offer builder. */
export interface OfferInput {
  credentialConfigurationIds: string[];
  initialAttributes: { path: string; value: unknown }[];
  initialConnectorFields: Record<string, string>;
  /** The pre-authorized code grant (a given code, or generated), or none. */
  preAuthorized: { code?: string | undefined } | null;
  /** Digits of a numeric tx_code (PIN) for the pre-authorized grant; none when absent. */
  pinLength?: number | undefined;
  /** An authorization_code grant with an issuer_state bound to the session. */
  authorizationCode: boolean;
  ttlSeconds?: number | undefined;
  correlationId?: string | undefined;
  clientId?: string | undefined;
  /** A credential_issuer the caller expects: must be this tenant's, never a choice of issuer. */
  credentialIssuer?: string | undefined;
  /** Base of the offer link (default `openid-credential-offer://`). */
  baseUri?: string | undefined;
}

export interface OfferOutput {
  correlationId: string;
  offerId: string;
  /** The credential offer URI (by reference: `credential_offer_uri`). */
  uri: string;
  offer: Record<string, unknown>;
  /** The tx_code description of the offer (§4.1.1), `{}` without a PIN. */
  txCode: Record<string, unknown>;
  /** The PIN itself, returned once; stored only hashed by the token service. */
  userPin?: string;
  expiresAt: string;
}

/**
 * The offer builder (OpenID4VCI 1.0 §4.1): a pipeline session with the initial attributes and connector fields,
 * the grants of the token service for it (contract A: a pre-authorized code with its PIN, and/or an issuer_state),
 * the offer object stored for `credential_offer_uri`, and the offer link.
 */
export const createOffer = (s: Oid4vciServices) =>
  defineCommand<OfferInput, OfferOutput>({
    id: CREATE_OFFER,
    access: 'write',
    businessIds: (input, output) => ({
      credentialConfigurationIds: input.credentialConfigurationIds.join(' '),
      ...(output ? { correlationId: output.correlationId, offerId: output.offerId } : {}),
    }),
    async run(ctx, input) {
      const endpoint = tenantEndpoint(s.config, ctx.tenantId);
      if (
        input.credentialIssuer !== undefined &&
        input.credentialIssuer.replace(/\/+$/, '') !== endpoint.credentialIssuer
      )
        throw offerInvalid("credential_issuer is not this tenant's credential issuer.", 'credential_issuer');
      const ids = input.credentialConfigurationIds;
      checkConfigurationIds(s.config, ids, 'credential_configuration_ids');
      const pipeline = sessionPipeline(s.config, ids, 'credential_configuration_ids');
      if (!input.preAuthorized && !input.authorizationCode)
        throw offerInvalid('An offer carries at least one grant.', 'grants');
      if (input.pinLength !== undefined) {
        if (!input.preAuthorized) throw offerInvalid('A PIN needs the pre-authorized code grant.', 'pinLength');
        const { minPinLength, maxPinLength } = s.config;
        if (!Number.isInteger(input.pinLength) || input.pinLength < minPinLength || input.pinLength > maxPinLength)
          throw offerInvalid(`pinLength is an integer from ${minPinLength} to ${maxPinLength}.`, 'pinLength');
      }
      const ttl = input.ttlSeconds ?? s.config.offerTtlSeconds;
      if (!Number.isInteger(ttl) || ttl < 30 || ttl > 86_400)
        throw offerInvalid('The offer lifetime is from 30 seconds to one day.', 'offerTtlSeconds');
      const baseUri = input.baseUri ?? 'openid-credential-offer://';
      try {
        new URL(baseUri);
      } catch {
        throw offerInvalid('baseUri is an absolute URI (e.g. openid-credential-offer://).', 'baseUri');
      }

      const principal = ctx.principal;
      if (!principal) throw new AppError('unauthenticated', 'An offer is made by an authenticated caller.');
      const ttlMs = ttl * 1000;
      // One unit of work: the pipeline session, the token service's grants and the stored offer commit together
      // with their audit events, or none of them does (issue 13 §7).
      const built = await ctx.unitOfWork(async (sql, unit) => {
        const session = await s.sessions.startSession(
          ctx.tenantId,
          principal,
          {
            pipeline_configuration: pipeline,
            correlation_id: input.correlationId ?? randomUUID(),
            initial_attributes: input.initialAttributes,
            initial_connector_fields: input.initialConnectorFields,
            // The session outlives the offer: the wallet may redeem it late and be answered as deferred.
            ttl_seconds: Math.max(ttl, 3600),
          },
          unit,
        );
        const correlationId = session.correlation_id;
        const grants = await offerGrants(s, ctx.tenantId, input, { correlationId, ids, ttl }, unit);
        const offerId = randomToken();
        const authorizationServer = s.authorizationServer.issuerFor(ctx.tenantId);
        // The link is the library's (§4.1.3: credential_offer_uri by reference keeps the QR code small).
        const { credentialOffer, credentialOfferObject } = await s.library.createCredentialOffer({
          issuerMetadata: {
            credentialIssuer: {
              credential_issuer: endpoint.credentialIssuer,
              credential_endpoint: endpoint.credentialEndpoint,
              authorization_servers: [authorizationServer],
              credential_configurations_supported: Object.fromEntries(
                ids.map((id) => [id, { format: s.config.credentialConfigurations[id]!.format }]),
              ),
            },
            authorizationServers: [{ issuer: authorizationServer }],
            knownCredentialConfigurations: {},
          } as never,
          credentialConfigurationIds: ids,
          grants: grants.grants as never,
          credentialOfferUri: endpoint.offerUri(offerId),
          credentialOfferScheme: baseUri,
        });
        const now = s.clock.now();
        const expiresAt = new Date(now.getTime() + ttlMs);
        const offer = credentialOfferObject as Record<string, unknown>;
        await offerStore.insert(sql, {
          offerId,
          correlationId,
          offer,
          clientId: input.clientId ?? null,
          createdAt: now,
          expiresAt,
        });
        return { correlationId, offerId, credentialOffer, offer, expiresAt, ...grants };
      });
      const { correlationId, offerId, offer, txCode, userPin, expiresAt } = built;
      return {
        correlationId,
        offerId,
        uri: built.credentialOffer,
        offer,
        txCode,
        ...(userPin === undefined ? {} : { userPin }),
        expiresAt: expiresAt.toISOString(),
      };
    },
  });

/** The grants of the offer (§4.1.1), created at the token service in the offer's unit of work. */
async function offerGrants(
  s: Oid4vciServices,
  tenantId: string,
  input: OfferInput,
  target: { correlationId: string; ids: string[]; ttl: number },
  unit: JoinedUnit,
): Promise<{ grants: Record<string, unknown>; txCode: Record<string, unknown>; userPin: string | undefined }> {
  const { correlationId, ids, ttl } = target;
  const grants: Record<string, unknown> = {};
  let userPin: string | undefined;
  let txCode: Record<string, unknown> = {};
  if (input.preAuthorized) {
    userPin = input.pinLength === undefined ? undefined : numericPin(input.pinLength);
    const code = await s.grants.createPreAuthorizedCode(
      tenantId,
      {
        correlationId,
        credentialConfigurationIds: ids,
        ...(input.preAuthorized.code === undefined ? {} : { preAuthorizedCode: input.preAuthorized.code }),
        ...(userPin === undefined ? {} : { txCode: userPin }),
        ttlSeconds: ttl,
      },
      unit,
    );
    if (userPin !== undefined)
      txCode = { input_mode: 'numeric', length: userPin.length, description: 'The PIN shown by the issuer' };
    grants[PRE_AUTHORIZED_GRANT] = {
      'pre-authorized_code': code.preAuthorizedCode,
      ...(userPin === undefined ? {} : { tx_code: txCode }),
    };
  }
  if (input.authorizationCode) {
    const state = await s.grants.createIssuerState(
      tenantId,
      { correlationId, credentialConfigurationIds: ids, ttlSeconds: ttl },
      unit,
    );
    grants[AUTHORIZATION_CODE_GRANT] = { issuer_state: state.issuerState };
  }
  return { grants, txCode, userPin };
}
