import type { JWK } from 'jose';
import type { ResponseMode } from './session.js';

/**
 * The authorization request of a session (OID4VP §5, signed as a request object per RFC 9101 and OID4VP §5.10),
 * and the deep link that carries it by reference. Pure: ids, keys and times come from the caller.
 */
export const REQUEST_OBJECT_TYP = 'oauth-authz-req+jwt';
export const REQUEST_OBJECT_CONTENT_TYPE = 'application/oauth-authz-req+jwt';
/** OID4VP §5.8: with static discovery (no wallet metadata, request_uri_method get) the request's aud is this. */
export const STATIC_DISCOVERY_AUDIENCE = 'https://self-issued.me/v2';

export const requestPath = (requestId: string) => `/auth/oid4vp/requests/${requestId}`;
export const responsePath = (requestId: string) => `/auth/oid4vp/responses/${requestId}`;
export const statusPath = (sessionId: string) => `/auth/oid4vp/sessions/${sessionId}/status`;
export const qrPagePath = (sessionId: string) => `/auth/oid4vp/qr/${sessionId}`;

export interface RequestObjectInput {
  clientId: string;
  publicBaseUrl: string;
  requestId: string;
  responseMode: ResponseMode;
  nonce: string;
  state: string;
  dcqlQuery: Record<string, unknown>;
  /** The fresh response-encryption key (direct_post.jwt only). */
  encryptionJwk: JWK | null;
  encValues: readonly string[];
  signingAlgorithms: readonly string[];
  issuedAt: Date;
  expiresAt: Date;
  /** The verifier's name and logo for the wallet (RFC 7591 §2 `client_name`, `logo_uri` in `client_metadata`). */
  display?: { clientName: string; logoUri?: string } | null | undefined;
}

export function buildRequestObject(input: RequestObjectInput): Record<string, unknown> {
  const algs = [...input.signingAlgorithms];
  return {
    // RFC 9101 §4: iss SHOULD be the client_id. With a DID client id, the wallet (and @openid4vc) reads `iss` as
    // the DID of the header kid, so the prefixed client_id cannot be the issuer: then `iss` is left out.
    ...(input.clientId.startsWith('decentralized_identifier:') ? {} : { iss: input.clientId }),
    aud: STATIC_DISCOVERY_AUDIENCE,
    // No nbf: a wallet whose clock runs a little behind would refuse a request valid from this very second.
    iat: Math.floor(input.issuedAt.getTime() / 1000),
    exp: Math.floor(input.expiresAt.getTime() / 1000),
    jti: input.requestId,
    response_type: 'vp_token',
    client_id: input.clientId,
    response_mode: input.responseMode,
    response_uri: `${input.publicBaseUrl}${responsePath(input.requestId)}`,
    nonce: input.nonce,
    state: input.state,
    dcql_query: input.dcqlQuery,
    client_metadata: {
      ...(input.display
        ? {
            client_name: input.display.clientName,
            ...(input.display.logoUri ? { logo_uri: input.display.logoUri } : {}),
          }
        : {}),
      vp_formats_supported: {
        'dc+sd-jwt': { 'sd-jwt_alg_values': algs, 'kb-jwt_alg_values': algs },
        jwt_vc_json: { alg_values: algs },
      },
      ...(input.encryptionJwk
        ? { jwks: { keys: [input.encryptionJwk] }, encrypted_response_enc_values_supported: [...input.encValues] }
        : {}),
    },
  };
}

/** The deep link (000 §4.1 requestUri): scheme openid4vp://, the request by reference (RFC 9101 §5.2, OID4VP §5.7). */
export function deepLink(clientId: string, publicBaseUrl: string, requestId: string): string {
  const params = new URLSearchParams({ client_id: clientId, request_uri: `${publicBaseUrl}${requestPath(requestId)}` });
  return `openid4vp://?${params.toString()}`;
}
