import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import {
  clientAuthenticationAnonymous,
  clientAuthenticationNone,
  fetchAuthorizationServerMetadata,
  getGlobalConfig,
  HashAlgorithm,
  setGlobalConfig,
  calculateJwkThumbprint,
  type ClientAuthenticationCallback,
  type Jwk,
  type JwtSignerJwk,
  type Oid4vcTsConfig,
} from '@openid4vc/oauth2';
import { Openid4vciClient, Openid4vciVersion, type IssuerMetadataResult } from '@openid4vc/openid4vci';
import { UserAgent } from '../support/user-agent.js';
import { CREDENTIAL_ISSUER, startOid4vciBed, WALLET_CLIENT, WALLET_REDIRECT, type Oid4vciBed } from './support.js';

const CONFIGURATIONS = {
  'pid-sd-jwt': { format: 'dc+sd-jwt', vct: 'https://credentials.example/pid' },
  'diploma-vc': { format: 'jwt_vc_json', credential_definition: { type: ['VerifiableCredential', 'Diploma'] } },
};

/**
 * An independent wallet, the client of @openid4vc/openid4vci 0.4.6, against the real token service (issue 19 item 2):
 * it reads an offer made through contract A and gets the credential endpoint's token, in the pre-authorized flow with
 * a PIN and DPoP, and in the authorization code flow with issuer_state, PKCE and DPoP. The issuer's metadata is built
 * here (the credential issuer is not part of this package); the authorization server's is fetched from ours.
 */
describe('the @openid4vc/openid4vci wallet client at our token service', () => {
  let bed: Oid4vciBed;
  let saved: Oid4vcTsConfig;
  let wallet: Openid4vciClient;
  let walletAs: (auth: ClientAuthenticationCallback) => Openid4vciClient;
  let issuerMetadata: IssuerMetadataResult;
  let dpopKey: { privateKey: CryptoKey; publicJwk: Jwk; jkt: string };

  beforeAll(async () => {
    // The token service listens on http://127.0.0.1 in tests; the library accepts https only unless told.
    saved = getGlobalConfig();
    setGlobalConfig({ ...saved, allowInsecureUrls: true });
    bed = await startOid4vciBed('pglite', { upstream: true });
    const pair = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = (await exportJWK(pair.publicKey)) as Jwk;
    const hash = (data: Uint8Array, alg: HashAlgorithm) =>
      createHash(alg === HashAlgorithm.Sha384 ? 'sha384' : alg === HashAlgorithm.Sha512 ? 'sha512' : 'sha256')
        .update(data)
        .digest();
    dpopKey = {
      privateKey: pair.privateKey,
      publicJwk,
      jkt: await calculateJwkThumbprint({ jwk: publicJwk, hashAlgorithm: HashAlgorithm.Sha256, hashCallback: hash }),
    };
    // Anonymous in the pre-authorized flow; a public client naming itself (client_id) in the authorization code flow.
    walletAs = (clientAuthentication) =>
      new Openid4vciClient({
        callbacks: {
          hash,
          generateRandom: (n) => randomBytes(n),
          fetch,
          clientAuthentication,
          signJwt: async (signer, { header, payload }) => {
            const jwk = (signer as JwtSignerJwk).publicJwk;
            const jwt = await new SignJWT(payload as Record<string, unknown>)
              .setProtectedHeader({ ...header, alg: 'ES256' } as never)
              .sign(dpopKey.privateKey);
            return { jwt, signerJwk: jwk };
          },
        },
      });
    wallet = walletAs(clientAuthenticationAnonymous());
    const authorizationServer = await fetchAuthorizationServerMetadata(bed.issuer, fetch);
    issuerMetadata = {
      originalDraftVersion: Openid4vciVersion.V1,
      credentialIssuer: {
        credential_issuer: CREDENTIAL_ISSUER,
        credential_endpoint: `${CREDENTIAL_ISSUER}/oid4vci/credential`,
        authorization_servers: [bed.issuer],
        credential_configurations_supported: CONFIGURATIONS,
      },
      authorizationServers: [authorizationServer!],
      knownCredentialConfigurations: CONFIGURATIONS,
    } as unknown as IssuerMetadataResult;
  });
  afterAll(async () => {
    setGlobalConfig(saved);
    await bed?.close();
  });

  const dpop = () => ({ signer: { method: 'jwk', alg: 'ES256', publicJwk: dpopKey.publicJwk } as JwtSignerJwk });

  it('reads our authorization server metadata as OpenID4VCI expects it', () => {
    const as = issuerMetadata.authorizationServers[0]!;
    expect(as['pre-authorized_grant_anonymous_access_supported']).toBe(true);
    expect(as.grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:pre-authorized_code');
  });

  it('pre-authorized flow with a PIN and DPoP: the offer of contract A, then the token of contract B', async () => {
    const { preAuthorizedCode } = await bed.grants.createPreAuthorizedCode('demo', {
      correlationId: 'wallet-pre-auth',
      credentialConfigurationIds: ['pid-sd-jwt'],
      txCode: '204060',
    });
    const offer = {
      credential_issuer: CREDENTIAL_ISSUER,
      credential_configuration_ids: ['pid-sd-jwt'],
      grants: {
        'urn:ietf:params:oauth:grant-type:pre-authorized_code': {
          'pre-authorized_code': preAuthorizedCode,
          tx_code: { input_mode: 'numeric', length: 6 },
        },
      },
    };
    const credentialOffer = await wallet.resolveCredentialOffer(
      `openid-credential-offer://?credential_offer=${encodeURIComponent(JSON.stringify(offer))}`,
    );
    const { accessTokenResponse, authorizationServer } = await wallet.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      txCode: '204060',
      dpop: dpop(),
    });
    expect(authorizationServer).toBe(bed.issuer);
    expect(accessTokenResponse).toMatchObject({
      token_type: 'DPoP',
      authorization_details: [
        {
          type: 'openid_credential',
          credential_configuration_id: 'pid-sd-jwt',
          credential_identifiers: ['pid-sd-jwt'],
        },
      ],
    });
    expect(await bed.verifyAccessToken(accessTokenResponse.access_token)).toMatchObject({
      aud: CREDENTIAL_ISSUER,
      sub: 'issuance:wallet-pre-auth',
      issuance_session: 'wallet-pre-auth',
      cnf: { jkt: dpopKey.jkt },
    });
  });

  it('pre-authorized flow with a wrong PIN: the wallet gets invalid_grant', async () => {
    const { preAuthorizedCode } = await bed.grants.createPreAuthorizedCode('demo', {
      correlationId: 'wallet-wrong-pin',
      credentialConfigurationIds: ['pid-sd-jwt'],
      txCode: '111111',
    });
    const credentialOffer = await wallet.resolveCredentialOffer(
      `openid-credential-offer://?credential_offer=${encodeURIComponent(
        JSON.stringify({
          credential_issuer: CREDENTIAL_ISSUER,
          credential_configuration_ids: ['pid-sd-jwt'],
          grants: {
            'urn:ietf:params:oauth:grant-type:pre-authorized_code': {
              'pre-authorized_code': preAuthorizedCode,
              tx_code: { length: 6 },
            },
          },
        }),
      )}`,
    );
    const error = await wallet
      .retrievePreAuthorizedCodeAccessTokenFromOffer({ credentialOffer, issuerMetadata, txCode: '999999' })
      .catch((e: unknown) => e as { errorResponse?: { error?: string } });
    expect((error as { errorResponse?: { error?: string } }).errorResponse?.error).toBe('invalid_grant');
  });

  it('authorization code flow with issuer_state, PKCE and DPoP, the person logging in at the provider', async () => {
    const { issuerState } = await bed.grants.createIssuerState('demo', {
      correlationId: 'wallet-auth-code',
      credentialConfigurationIds: ['pid-sd-jwt', 'diploma-vc'],
    });
    const credentialOffer = await wallet.resolveCredentialOffer(
      `openid-credential-offer://?credential_offer=${encodeURIComponent(
        JSON.stringify({
          credential_issuer: CREDENTIAL_ISSUER,
          credential_configuration_ids: ['pid-sd-jwt', 'diploma-vc'],
          grants: { authorization_code: { issuer_state: issuerState } },
        }),
      )}`,
    );
    const { authorizationRequestUrl, pkce } = await wallet.createAuthorizationRequestUrlFromOffer({
      credentialOffer,
      issuerMetadata,
      clientId: WALLET_CLIENT,
      redirectUri: WALLET_REDIRECT,
      additionalRequestPayload: {
        authorization_details: JSON.stringify([
          { type: 'openid_credential', credential_configuration_id: 'diploma-vc' },
        ]),
      },
    });
    const ua = new UserAgent();
    const page = await ua.follow(authorizationRequestUrl, WALLET_REDIRECT);
    expect(page.response?.status, 'the login page of the provider').toBe(200);
    const user = bed.idp!.users[0]!;
    const back = await ua.login(
      page as { url: string; response: Response },
      user.username,
      user.password,
      WALLET_REDIRECT,
    );
    const authorization = wallet.parseAndVerifyAuthorizationResponseRedirectUrl({
      url: back.url,
      authorizationServerMetadata: issuerMetadata.authorizationServers[0]!,
    });
    expect(authorization.error).toBeUndefined();
    const publicClient = walletAs(clientAuthenticationNone({ clientId: WALLET_CLIENT }));
    const { accessTokenResponse } = await publicClient.retrieveAuthorizationCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      authorizationCode: authorization.code!,
      pkceCodeVerifier: pkce!.codeVerifier,
      redirectUri: WALLET_REDIRECT,
      dpop: dpop(),
    });
    expect(accessTokenResponse.authorization_details).toEqual([
      { type: 'openid_credential', credential_configuration_id: 'diploma-vc', credential_identifiers: ['diploma-vc'] },
    ]);
    const claims = await bed.verifyAccessToken(accessTokenResponse.access_token);
    expect(claims).toMatchObject({
      issuance_session: 'wallet-auth-code',
      client_id: WALLET_CLIENT,
      cnf: { jkt: dpopKey.jkt },
    });
    expect(claims.sub).toMatch(/^[0-9a-f-]{36}$/);
  });
});
