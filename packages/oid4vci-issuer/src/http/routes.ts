import { commandContext, strictBody, type FastifyRequest, type RoleApp } from '@tessera/platform';
import { createNonce } from '../commands/create-nonce.js';
import { createOffer } from '../commands/create-offer.js';
import { readMetadata } from '../commands/read-metadata.js';
import { readOffer } from '../commands/read-offer.js';
import { readJwtVcIssuer } from '../commands/read-jwt-vc-issuer.js';
import { recordNotification } from '../commands/record-notification.js';
import { requestCredential, type WalletRequest } from '../commands/request-credential.js';
import { requestDeferredCredential } from '../commands/request-deferred-credential.js';
import { offerInvalid } from '../domain/errors.js';
import { flattenAttributes, PRE_AUTHORIZED_GRANT } from '../domain/offer.js';
import { boundPrefixes, endpointAt, ROUTES } from '../domain/tenant-endpoint.js';
import type { Oid4vciServices } from '../services.js';
import { qrCodeDataUri } from './qr-code.js';
import { OfferParams, WebappOfferBody } from './schemas.js';

const NO_STORE = { 'cache-control': 'no-store' };
/** Wallet-facing routes: no platform bearer check (the credential endpoints verify their own tokens), oauth errors. */
export const WALLET = { auth: 'none' as const, family: 'oauth' as const };

/**
 * The wallet-facing endpoints of each bound credential issuer (001 §4.2; OpenID4VCI 1.0), under the path of its
 * identifier; the tenant comes from the platform's resolution (Host mapping or default) and must be the one bound
 * at that path.
 */
export function registerWalletRoutes(app: RoleApp, s: Oid4vciServices): void {
  const bus = s.platform.commands;
  const c = {
    metadata: readMetadata(s),
    jwtVcIssuer: readJwtVcIssuer(s),
    nonce: createNonce(s),
    offer: readOffer(s),
    credential: requestCredential(s),
    deferred: requestDeferredCredential(s),
    notification: recordNotification(s),
  };
  const tags = ['openid4vci'];
  const prefixes = new Set(['', ...boundPrefixes(s.config)]);
  for (const prefix of prefixes) {
    const at = (request: FastifyRequest) => endpointAt(s.config, commandContext(request).tenantId, prefix);

    // §12.2.2: the well-known suffix goes between host and path.
    app.get(`${ROUTES.metadata}${prefix}`, { config: WALLET, schema: { tags } }, async (request, reply) => {
      const endpoint = at(request);
      return reply
        .header('cache-control', 'public, max-age=60')
        .send(await bus.execute(c.metadata, commandContext(request), { endpoint }));
    });

    // SD-JWT VC §5: the keys of the credentials whose iss is this credential issuer.
    app.get(`${ROUTES.jwtVcIssuer}${prefix}`, { config: WALLET, schema: { tags } }, async (request, reply) => {
      const endpoint = at(request);
      return reply
        .header('cache-control', 'public, max-age=300')
        .send(await bus.execute(c.jwtVcIssuer, commandContext(request), { endpoint }));
    });

    const walletRequest = (request: FastifyRequest): WalletRequest => ({
      endpoint: at(request),
      authorization: request.headers.authorization,
      dpop: request.headers.dpop,
      body: request.body,
    });

    app.post(`${prefix}${ROUTES.credential}`, { config: WALLET, schema: { tags } }, async (request, reply) => {
      const outcome = await bus.execute(c.credential, commandContext(request), walletRequest(request));
      reply.headers(NO_STORE);
      // §8.3: 200 with the credentials; §9.1: 202 with a transaction_id while the issuance is deferred.
      if (outcome.kind === 'deferred')
        return reply.code(202).send({ transaction_id: outcome.transaction_id, interval: outcome.interval });
      return reply.send({ credentials: outcome.credentials, notification_id: outcome.notification_id });
    });

    app.post(`${prefix}${ROUTES.deferred}`, { config: WALLET, schema: { tags } }, async (request, reply) => {
      const body = request.body as { transaction_id?: unknown } | null;
      const outcome = await bus.execute(c.deferred, commandContext(request), walletRequest(request));
      reply.headers(NO_STORE);
      // OpenID4VCI 1.0 §9.2: still pending → 202 with the same transaction_id and the interval to wait.
      if (outcome.kind === 'pending')
        return reply.code(202).send({ transaction_id: body?.transaction_id, interval: outcome.interval });
      if (outcome.kind === 'deferred')
        return reply.code(202).send({ transaction_id: outcome.transaction_id, interval: outcome.interval });
      return reply.send({ credentials: outcome.credentials, notification_id: outcome.notification_id });
    });

    app.post(`${prefix}${ROUTES.notification}`, { config: WALLET, schema: { tags } }, async (request, reply) => {
      await bus.execute(c.notification, commandContext(request), walletRequest(request));
      return reply.code(204).headers(NO_STORE).send();
    });

    // §7.1: the nonce request is a POST without a body. Wallets differ in the content type they still name
    // (none, JSON, an empty form); whatever it is, the body is drained within the body limit and not read, so no
    // content type is refused here.
    void app.register(async (scope: RoleApp) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
      scope.post(`${prefix}${ROUTES.nonce}`, { config: WALLET, schema: { tags } }, async (request, reply) => {
        at(request);
        return reply.headers(NO_STORE).send(await bus.execute(c.nonce, commandContext(request), {}));
      });
    });

    app.get(
      `${prefix}${ROUTES.offers}/:offerId`,
      { config: WALLET, schema: { tags, params: OfferParams } },
      async (request, reply) => {
        at(request);
        return reply.headers(NO_STORE).send(await bus.execute(c.offer, commandContext(request), request.params));
      },
    );
  }
}

/**
 * POST /oid4vci/webapp/credential-offers (001 §4.3, body and answer §2.3): a bearer-authenticated web application
 * (a tenant administrator, or a client granted `oid4vci.issuer.createoffer`) asks for an offer link.
 */
export function registerWebappOfferRoute(app: RoleApp, s: Oid4vciServices): void {
  const bus = s.platform.commands;
  const create = createOffer(s);
  app.post(
    ROUTES.webappOffers,
    {
      config: { family: 'oauth' },
      preValidation: strictBody(WebappOfferBody),
      schema: { tags: ['openid4vci'], body: WebappOfferBody },
    },
    async (request, reply) => {
      const body = request.body;
      const preAuthorized = body.grants?.[PRE_AUTHORIZED_GRANT];
      const authorizationCode = body.grants?.authorization_code !== undefined;
      if (body.scheme !== undefined && body.baseUri !== undefined)
        throw offerInvalid('Give baseUri or scheme, not both.', 'scheme');
      const result = await bus.execute(create, commandContext(request), {
        credentialConfigurationIds: body.credential_configuration_ids,
        initialAttributes: flattenAttributes(body.credentialDataSupplierInput ?? {}),
        initialConnectorFields: {},
        // Without grants the pre-authorized code flow is offered (the web application hands the link over).
        preAuthorized:
          preAuthorized !== undefined || !authorizationCode ? { code: preAuthorized?.['pre-authorized_code'] } : null,
        pinLength: body.pinLength,
        authorizationCode,
        clientId: body.client_id,
        credentialIssuer: body.credential_issuer,
        baseUri: body.baseUri ?? (body.scheme === undefined ? undefined : `${body.scheme}://`),
      });
      const qrCode = body.qrCodeOpts ? await qrCodeDataUri(result.uri, body.qrCodeOpts) : undefined;
      return reply.headers(NO_STORE).send({
        txCode: result.txCode,
        uri: result.uri,
        ...(result.userPin === undefined ? {} : { userPin: result.userPin }),
        ...(qrCode === undefined ? {} : { qrCodeDataUri: qrCode }),
      });
    },
  );
}
