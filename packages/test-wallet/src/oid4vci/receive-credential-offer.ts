import type { JwtSignerJwk } from '@openid4vc/oauth2';
import type { CredentialOfferObject, IssuerMetadataResult } from '@openid4vc/openid4vci';
import { isCredentialFormat, type CredentialFormat, type IssuedCredential } from '../common/credential-format.js';
import type { Clock } from '../common/clock.js';
import { generateEs256Key } from '../crypto/generate-es256-key.js';
import { withLoopbackHttp } from '../wallet/allow-loopback-http.js';
import type { HeldCredential } from '../wallet/decode-held-credential.js';
import type { HolderKey } from '../wallet/manage-holder-keys.js';
import type { ReceivedFrom } from '../wallet/store-credentials.js';
import { WalletError } from '../wallet/wallet-error.js';
import { createVciClient } from './create-vci-client.js';
import { describeIssuanceError } from './describe-issuance-error.js';
import { needsLoopbackHttp, parseCredentialOfferLink, requireSecureUrl } from './parse-credential-offer-link.js';
import { verifyIssuerSignature } from './verify-issuer-signature.js';

const PRE_AUTHORIZED_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

export interface ReceiveOptions {
  /** The transaction code (PIN) the issuer gave the person beside the offer (OpenID4VCI 1.0 §4.1.1 `tx_code`). */
  txCode?: string;
}

export interface ReceiveResult {
  credentialIssuer: string;
  /** The credentials received and stored, one per offered credential configuration. */
  credentials: HeldCredential[];
  /** Things that went wrong without stopping the issuance (e.g. the notification was not taken). */
  warnings: string[];
}

export interface ReceiveContext {
  fetch: typeof fetch;
  clock: Clock;
  /** The holder key the next credential is bound to (`wallet.nextBindingKey()`), with its private part. */
  nextBindingKey(): Promise<HolderKey>;
  /** Keeps a received credential (checks that it is bound to a key of the wallet). */
  store(credential: IssuedCredential, receivedFrom: ReceivedFrom): Promise<HeldCredential>;
}

/** Fails with a one-line WalletError naming the step, whatever the library threw. */
async function step<T>(name: string, where: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw describeIssuanceError(name, where, error);
  }
}

function formatOf(metadata: IssuerMetadataResult, configurationId: string): CredentialFormat {
  const configuration = metadata.credentialIssuer.credential_configurations_supported[configurationId];
  if (!configuration)
    throw new WalletError(
      'invalid_offer',
      `the issuer's metadata has no credential configuration '${configurationId}'`,
    );
  const format = String(configuration.format);
  if (!isCredentialFormat(format))
    throw new WalletError(
      'unsupported_offer',
      `'${configurationId}' is ${format}; the wallet holds dc+sd-jwt and jwt_vc_json`,
    );
  return format;
}

/** Every endpoint the wallet is about to call must be https, or plain http on loopback (development). */
function checkEndpoints(metadata: IssuerMetadataResult): void {
  const issuer = metadata.credentialIssuer;
  requireSecureUrl(issuer.credential_endpoint, 'credential_endpoint');
  if (issuer.nonce_endpoint) requireSecureUrl(issuer.nonce_endpoint, 'nonce_endpoint');
  if (issuer.notification_endpoint) requireSecureUrl(issuer.notification_endpoint, 'notification_endpoint');
  for (const server of metadata.authorizationServers)
    if (server.token_endpoint) requireSecureUrl(server.token_endpoint, 'token_endpoint');
}

/**
 * Receives the credentials of an offer (OpenID4VCI 1.0) through the pre-authorized code flow: resolve the offer
 * (by value or by `credential_offer_uri`), read the issuer's metadata, redeem the pre-authorized code with the PIN
 * at the token endpoint (DPoP-bound with a fresh key when the authorization server supports DPoP, RFC 9449), then
 * per offered configuration a fresh `c_nonce` and a jwt key proof (Appendix F.1) signed with the holder key the
 * credential is bound to. Each credential is checked (its `iss` and its signature under the issuer's published key)
 * before it is stored, and the issuer is told `credential_accepted` (§11).
 */
export async function receiveCredentialOffer(
  context: ReceiveContext,
  link: string,
  options: ReceiveOptions = {},
): Promise<ReceiveResult> {
  const parsed = parseCredentialOfferLink(link);
  const offerIssuer =
    parsed.kind === 'by-value' && typeof parsed.offer['credential_issuer'] === 'string'
      ? parsed.offer['credential_issuer']
      : undefined;
  const vci = createVciClient(context.fetch);
  const offerWhere = parsed.kind === 'by-reference' ? parsed.offerUri : 'the offer';
  const offer: CredentialOfferObject = await withLoopbackHttp(
    needsLoopbackHttp(parsed.kind === 'by-reference' ? parsed.offerUri : undefined),
    () => step('reading the offer', offerWhere, () => vci.client.resolveCredentialOffer(parsed.link)),
  );
  const credentialIssuer = offer.credential_issuer;
  requireSecureUrl(credentialIssuer, 'credential_issuer');
  if (offerIssuer !== undefined && offerIssuer !== credentialIssuer)
    throw new WalletError('invalid_offer', 'the offer names two credential issuers');
  const grant = offer.grants?.[PRE_AUTHORIZED_CODE_GRANT];
  if (!grant)
    throw new WalletError(
      'unsupported_offer',
      'the offer has no pre-authorized code grant (this wallet does not run the authorization code flow)',
    );
  if (grant.tx_code && !options.txCode) {
    const length = grant.tx_code.length ? `${grant.tx_code.length} characters` : 'a code';
    const description = grant.tx_code.description ? `, "${grant.tx_code.description}"` : '';
    throw new WalletError(
      'pin_required',
      `the offer asks for a transaction code (${length}${description}); pass --pin`,
    );
  }

  return withLoopbackHttp(needsLoopbackHttp(credentialIssuer), async () => {
    const metadata = await step('reading the issuer metadata', credentialIssuer, () =>
      vci.client.resolveIssuerMetadata(credentialIssuer),
    );
    checkEndpoints(metadata);
    const formats = new Map(offer.credential_configuration_ids.map((id) => [id, formatOf(metadata, id)]));
    const server = metadata.authorizationServers[0];
    const dpopSigner: JwtSignerJwk | undefined = server?.dpop_signing_alg_values_supported?.includes('ES256')
      ? await vci.signerFor(await generateEs256Key())
      : undefined;
    const token = await step('redeeming the pre-authorized code', 'the token endpoint', () =>
      vci.client.retrievePreAuthorizedCodeAccessTokenFromOffer({
        credentialOffer: offer,
        issuerMetadata: metadata,
        ...(grant.tx_code && options.txCode ? { txCode: options.txCode } : {}),
        ...(dpopSigner ? { dpop: { signer: dpopSigner } } : {}),
      }),
    );
    const accessToken = token.accessTokenResponse.access_token;
    let dpopNonce = token.dpop?.nonce;
    const dpop = () => (dpopSigner ? { dpop: { signer: dpopSigner, ...(dpopNonce ? { nonce: dpopNonce } : {}) } } : {});

    const credentials: HeldCredential[] = [];
    const warnings: string[] = [];
    for (const [configurationId, format] of formats) {
      const holder = await context.nextBindingKey();
      const nonce = metadata.credentialIssuer.nonce_endpoint
        ? (
            await step('fetching a nonce', 'the nonce endpoint', () =>
              vci.client.requestNonce({ issuerMetadata: metadata }),
            )
          ).c_nonce
        : undefined;
      const signer = await vci.signerFor(holder.privateJwk);
      const proof = await vci.client.createCredentialRequestJwtProof({
        issuerMetadata: metadata,
        credentialConfigurationId: configurationId,
        signer,
        ...(nonce ? { nonce } : {}),
        issuedAt: context.clock.now(),
      });
      const answer = await step(`requesting '${configurationId}'`, 'the credential endpoint', () =>
        vci.client.retrieveCredentials({
          issuerMetadata: metadata,
          credentialConfigurationId: configurationId,
          proofs: { jwt: [proof.jwt] },
          accessToken,
          ...dpop(),
        }),
      );
      dpopNonce = answer.dpop?.nonce ?? dpopNonce;
      const response = answer.credentialResponse;
      if (!response.credentials?.length) {
        throw new WalletError(
          'unsupported_offer',
          response.transaction_id
            ? `the issuer deferred '${configurationId}' (transaction ${response.transaction_id}); this wallet does not wait for deferred credentials`
            : `the issuer's answer for '${configurationId}' holds no credential`,
        );
      }
      for (const entry of response.credentials) {
        const raw = (entry as { credential?: unknown }).credential;
        if (typeof raw !== 'string')
          throw new WalletError('issuance_refused', `the issuer's credential for '${configurationId}' is not a string`);
        await step('checking the credential', credentialIssuer, () =>
          verifyIssuerSignature({ raw, format, credentialIssuer, fetch: context.fetch }),
        );
        credentials.push(
          await context.store(
            { format, raw },
            {
              credentialIssuer,
              credentialConfigurationId: configurationId,
              receivedAt: context.clock.now().toISOString(),
            },
          ),
        );
      }
      if (response.notification_id && metadata.credentialIssuer.notification_endpoint) {
        const notificationId = response.notification_id;
        try {
          const sent = await vci.client.sendNotification({
            issuerMetadata: metadata,
            notification: { event: 'credential_accepted', notificationId },
            accessToken,
            ...dpop(),
          });
          dpopNonce = sent.dpop?.nonce ?? dpopNonce;
        } catch (error) {
          warnings.push(describeIssuanceError('notifying credential_accepted', 'the issuer', error).message);
        }
      }
    }
    return { credentialIssuer, credentials, warnings };
  });
}
