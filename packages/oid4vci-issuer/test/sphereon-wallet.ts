import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { CreateDPoPClientOpts } from '@sphereon/oid4vc-common';
import type { Jwt, ProofOfPossessionCallbacks } from '@sphereon/oid4vci-common';
import {
  CredentialRequestClientBuilderV1_0_15,
  ProofOfPossessionBuilder,
  type OpenID4VCIClientV1_0_15,
} from '@sphereon/oid4vci-client';

/**
 * Keys and signing callbacks for a wallet built on @sphereon/oid4vci-client (a second wallet implementation,
 * independent of @openid4vc/openid4vci and of our issuer code): ES256 keys made here, signing with jose.
 */
export interface SphereonKey {
  publicJwk: JWK;
  privateKey: CryptoKey;
}

export async function newSphereonKey(): Promise<SphereonKey> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { publicJwk: await exportJWK(publicKey), privateKey: privateKey as CryptoKey };
}

/** The library's proof callbacks: it builds header and payload (typ, aud, nonce, iat, jwk), we only sign. */
export function proofCallbacks(key: SphereonKey): ProofOfPossessionCallbacks {
  return {
    signCallback: async (jwt: Jwt) =>
      new SignJWT(jwt.payload as Record<string, unknown>)
        .setProtectedHeader(jwt.header as { alg: string })
        .sign(key.privateKey),
  };
}

/** The library's DPoP options (RFC 9449): it builds the proof (htm, htu, ath, nonce), we only sign. */
export function dpopOptions(key: SphereonKey): CreateDPoPClientOpts {
  return {
    jwtIssuer: { alg: 'ES256', jwk: key.publicJwk as never },
    dPoPSigningAlgValuesSupported: ['ES256'],
    jwtPayloadProps: {},
    createJwtCallback: async (_issuer, jwt) =>
      new SignJWT(jwt.payload as Record<string, unknown>)
        .setProtectedHeader(jwt.header as { alg: string })
        .sign(key.privateKey),
  };
}

/**
 * One credential request through the library's credential request client: the library fetches the c_nonce from
 * the nonce endpoint, builds and signs the jwt proof (typ, aud = the issuer, nonce, iat, jwk) and the DPoP proof of
 * the request, and sends it. The library speaks OpenID4VCI draft 15, which carries one proof in `proof`;
 * OpenID4VCI 1.0 §8.2 takes them in `proofs` (by proof type, an array of JWTs) only, so the request the library
 * built is handed back to it with its proof moved there, nothing else changed.
 */
export async function requestCredential(
  client: OpenID4VCIClientV1_0_15,
  o: {
    credentialConfigurationId: string;
    format: 'dc+sd-jwt' | 'jwt_vc_json';
    holder: SphereonKey;
    dpop?: SphereonKey;
    /** The wallet's client id, the proof's iss (§8.2.1.1: in the authorization code flow). */
    clientId?: string;
  },
) {
  const nonce = await client.acquireNonce();
  const requestClient = CredentialRequestClientBuilderV1_0_15.fromCredentialIssuer({
    credentialIssuer: client.getIssuer(),
    metadata: client.endpointMetadata,
    credentialConfigurationId: o.credentialConfigurationId,
  })
    // The library's metadata result keeps the deferred endpoint under credentialIssuerMetadata only, where this
    // builder does not look by itself.
    .withDeferredCredentialEndpointFromMetadata(client.endpointMetadata.credentialIssuerMetadata!)
    .withTokenFromResponse(client.accessTokenResponse)
    .build();
  const proofInput = ProofOfPossessionBuilder.fromAccessTokenResponse({
    accessTokenResponse: client.accessTokenResponse,
    callbacks: proofCallbacks(o.holder),
    version: client.version(),
  })
    .withIssuer(client.getIssuer())
    .withAlg('ES256')
    .withJWK(o.holder.publicJwk as never)
    .withAccessTokenNonce(nonce);
  if (o.clientId) proofInput.withClientId(o.clientId);
  const draft15 = await requestClient.createCredentialRequest({
    proofInput,
    credentialConfigurationId: o.credentialConfigurationId,
    format: o.format,
    version: client.version(),
  });
  const { proof, ...request } = draft15 as typeof draft15 & { proof: { jwt: string } };
  const response = await requestClient.acquireCredentialsUsingRequest(
    { ...request, proofs: { jwt: [proof.jwt] } } as never,
    o.format,
    o.dpop ? dpopOptions(o.dpop) : undefined,
  );
  return { requestClient, proofJwt: proof.jwt, response };
}
