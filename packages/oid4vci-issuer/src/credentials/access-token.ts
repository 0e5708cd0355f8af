import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { DpopError, verifyDpopProof, type DpopReplayStore } from '@tessera/pkce-dpop';
import { tokenError } from '../domain/errors.js';

/** What the credential endpoints read from a verified access token (contract B of issue 19). */
export interface CredentialAccess {
  jti: string;
  subject: string;
  /** The issuance session's correlation id (`issuance_session`). */
  correlationId: string;
  clientId: string | undefined;
  /** Configuration id → the credential identifiers the token authorizes for it (may be empty). */
  authorized: Map<string, string[]>;
  dpopBound: boolean;
}

export interface VerifyAccessOptions {
  authorization: string | undefined;
  dpop: string | string[] | undefined;
  method: string;
  /** The endpoint URL as the wallet addressed it (DPoP `htu`). */
  url: string;
  tenantId: string;
  issuer: string;
  audience: string;
  jwks: JWK[];
  dpopRequired: boolean;
  replayStore: DpopReplayStore;
  now: Date;
}

const AT_TYPES = new Set(['at+jwt', 'application/at+jwt']);

/**
 * jose's local key set imports each JWK once and keeps it; the key set read per request is a new array of new
 * objects, so a set made per request imported the token key (WebCrypto) every time. Sets are kept by the key set's
 * content (a pure function of it: a rotation reads a different content, hence a new set), at most 64, emptied when
 * full.
 */
const MAX_KEY_SETS = 64;
const keySets = new Map<string, ReturnType<typeof createLocalJWKSet>>();

function keySetOf(jwks: JWK[]): ReturnType<typeof createLocalJWKSet> {
  const content = JSON.stringify(jwks);
  let set = keySets.get(content);
  if (!set) {
    set = createLocalJWKSet({ keys: structuredClone(jwks) });
    if (keySets.size >= MAX_KEY_SETS) keySets.clear();
    keySets.set(content, set);
  }
  return set;
}

/**
 * The resource-server check of the credential endpoints (RFC 9068 §4, RFC 9449 §7): the JWT access token of the
 * tenant's token service, signed by its key, `aud` = this tenant's credential issuer, `tenant_id` = the tenant; a
 * DPoP-bound token (`cnf.jkt`) only with the DPoP scheme and a valid proof for this request (key thumbprint, `ath`,
 * `htm`/`htu`, `iat`, `jti` never seen before); a bearer token refused when DPoP is required (HAIP 1.0).
 */
export async function verifyCredentialAccess(o: VerifyAccessOptions): Promise<CredentialAccess> {
  const scheme = o.dpopRequired ? 'DPoP' : 'Bearer';
  const match = /^(DPoP|Bearer) +([A-Za-z0-9._~+/-]+=*)$/i.exec(o.authorization ?? '');
  if (!match) throw tokenError(scheme, 'invalid_token', 'An access token is required.');
  const presented = match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
  const token = match[2]!;
  let payload: JWTPayload;
  try {
    const verified = await jwtVerify(token, keySetOf(o.jwks), {
      issuer: o.issuer,
      audience: o.audience,
      currentDate: o.now,
      algorithms: ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'],
    });
    if (!AT_TYPES.has(String(verified.protectedHeader.typ).toLowerCase()))
      throw tokenError(presented, 'invalid_token', 'The access token is not an RFC 9068 access token (typ).');
    payload = verified.payload;
  } catch (error) {
    if (error instanceof joseErrors.JOSEError) throw tokenError(presented, 'invalid_token', accessTokenProblem(error));
    throw error;
  }
  if (payload.tenant_id !== o.tenantId)
    throw tokenError(presented, 'invalid_token', 'The access token belongs to another tenant.');
  const correlationId = payload.issuance_session;
  if (typeof correlationId !== 'string' || typeof payload.jti !== 'string' || typeof payload.sub !== 'string')
    throw tokenError(presented, 'invalid_token', 'The access token is not one for credential issuance.');

  const jkt = (payload.cnf as { jkt?: unknown } | undefined)?.jkt;
  if (typeof jkt === 'string') {
    if (presented !== 'DPoP') throw tokenError('DPoP', 'invalid_token', 'A DPoP-bound token is presented with DPoP.');
    try {
      await verifyDpopProof({
        dpopProof: o.dpop,
        httpMethod: o.method,
        httpUrl: o.url,
        accessToken: token,
        expectedJwkThumbprint: jkt,
        replayStore: o.replayStore,
        now: o.now,
      });
    } catch (error) {
      if (error instanceof DpopError) throw tokenError('DPoP', 'invalid_dpop_proof', error.message);
      throw error;
    }
  } else {
    if (o.dpopRequired) throw tokenError('DPoP', 'invalid_token', 'This issuer accepts DPoP-bound access tokens only.');
    if (presented !== 'Bearer') throw tokenError('Bearer', 'invalid_token', 'The access token is not DPoP-bound.');
  }

  const authorized = new Map<string, string[]>();
  const details = Array.isArray(payload.authorization_details) ? payload.authorization_details : [];
  for (const d of details as Record<string, unknown>[]) {
    if (d?.type !== 'openid_credential' || typeof d.credential_configuration_id !== 'string') continue;
    const ids = Array.isArray(d.credential_identifiers) ? (d.credential_identifiers as unknown[]) : [];
    authorized.set(
      d.credential_configuration_id,
      ids.filter((x): x is string => typeof x === 'string'),
    );
  }
  return {
    jti: payload.jti,
    subject: payload.sub,
    correlationId,
    clientId: typeof payload.client_id === 'string' ? payload.client_id : undefined,
    authorized,
    dpopBound: typeof jkt === 'string',
  };
}

function accessTokenProblem(error: joseErrors.JOSEError): string {
  if (error instanceof joseErrors.JWTExpired) return 'The access token has expired.';
  if (error instanceof joseErrors.JWTClaimValidationFailed)
    return error.claim === 'aud'
      ? 'The access token is not for this credential issuer (aud).'
      : `The access token's ${error.claim} claim is not acceptable.`;
  return 'The access token could not be verified.';
}
