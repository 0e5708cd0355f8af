import { compactVerify, errors, importJWK, type JWK } from 'jose';
import { constantTimeEqual } from '../crypto/constant-time-equal.js';
import { dpopReplayKey, type DpopReplayStore } from '../replay/dpop-replay-store.js';
import { computeAccessTokenHash } from './compute-access-token-hash.js';
import { proofKey, proofSignatureVerifies } from './verify-proof-signature.js';
import { computeJwkThumbprint } from './compute-jwk-thumbprint.js';
import { decodeDpopProof } from './decode-dpop-proof.js';
import { DpopError, invalidProof } from './dpop-error.js';
import type { DpopNonceValidator } from './dpop-nonce-manager.js';
import {
  DEFAULT_DPOP_ALGS,
  DPOP_JWT_TYPE,
  DPOP_VERIFICATION_ALGS,
  type DpopProofHeader,
  type DpopProofPayload,
  type DpopVerificationAlg,
} from './dpop-types.js';
import { normalizeHtuClaim, normalizeHttpUri } from './normalize-htu.js';
import { hasPrivateMembers } from './public-jwk.js';
import { readDpopHeader } from './read-dpop-header.js';

export const DEFAULT_IAT_WINDOW_SECONDS = 60;
export const DEFAULT_CLOCK_SKEW_SECONDS = 5;

export interface VerifyDpopProofOptions {
  /** The request's DPoP header value(s), as the framework hands them over. */
  dpopProof: string | readonly string[] | null | undefined;
  /** The request method. */
  httpMethod: string;
  /** The request URI as the client addressed it (behind a proxy: the external URL); query and fragment ignored. */
  httpUrl: string | URL;
  /**
   * When the server requires a nonce: the nonce it provided, or a validator (DpopNonceManager) that knows the
   * nonces still valid. Absent or null: no nonce required.
   */
  expectedNonce?: string | DpopNonceValidator | null;
  /** The access token presented with the proof; its hash must be the proof's `ath` (RFC 9449 §4.3 point 12). */
  accessToken?: string | null;
  /** The `cnf.jkt` of the presented token, or a `dpop_jkt` the authorization request bound (RFC 9449 §6, §10). */
  expectedJwkThumbprint?: string | null;
  /** Default ES256 and ES384. Only asymmetric algorithms are accepted here. */
  allowedSigningAlgs?: readonly DpopVerificationAlg[];
  /** Where seen `jti`s are kept (RFC 9449 §11.1). */
  replayStore: DpopReplayStore;
  /** The current time; tests inject it. */
  now?: Date;
  /** Accepted distance of `iat` from now, either side, before skew. Default 60. */
  iatWindowSeconds?: number;
  /** Added to the window on both sides for clock differences. Default 5. */
  clockSkewSeconds?: number;
}

export interface VerifiedDpopProof {
  header: DpopProofHeader;
  payload: DpopProofPayload;
  jwkThumbprint: string;
}

function normalizeTyp(typ: string): string {
  const lower = typ.toLowerCase();
  // RFC 7515 §4.1.9: "application/" may be omitted from a typ media type, and media types are case-insensitive.
  return lower.startsWith('application/') ? lower.slice('application/'.length) : lower;
}

function checkAllowedAlgs(algs: readonly DpopVerificationAlg[]): void {
  if (algs.length === 0 || !algs.every((alg) => DPOP_VERIFICATION_ALGS.includes(alg))) {
    throw new TypeError('allowedSigningAlgs must list asymmetric JWS algorithms only');
  }
}

function checkWindow(value: number, name: string): void {
  if (!Number.isFinite(value) || value < 0) throw new TypeError(`${name} must be a non-negative number`);
}

const FAST_ALGS = new Set(['ES256', 'ES384']);

async function verifyWithJose(proof: string, jwk: Record<string, unknown>, alg: string): Promise<string> {
  let key;
  try {
    key = await importJWK(jwk as JWK, alg);
    if (key instanceof Uint8Array || key.type !== 'public') throw new TypeError('not a public key');
  } catch (cause) {
    throw invalidProof('invalid_jwk', 'DPoP proof jwk is not a usable public key for its alg', cause);
  }
  try {
    await compactVerify(proof, key, { algorithms: [alg] });
  } catch (cause) {
    if (cause instanceof errors.JWSSignatureVerificationFailed) {
      throw invalidProof('invalid_signature', 'DPoP proof signature does not verify');
    }
    throw invalidProof('malformed_proof', 'DPoP proof is not a valid JWS', cause);
  }
  return computeJwkThumbprint(jwk as JWK);
}

function readClaims(payload: Record<string, unknown>): DpopProofPayload {
  const { jti, htm, htu, iat, ath, nonce } = payload;
  if (typeof jti !== 'string' || jti === '') throw invalidProof('missing_claim', 'DPoP proof lacks a jti');
  if (typeof htm !== 'string' || htm === '') throw invalidProof('missing_claim', 'DPoP proof lacks an htm');
  if (typeof htu !== 'string' || htu === '') throw invalidProof('missing_claim', 'DPoP proof lacks an htu');
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw invalidProof('missing_claim', 'DPoP proof lacks an iat');
  if (ath !== undefined && typeof ath !== 'string')
    throw invalidProof('malformed_proof', 'DPoP proof ath is not a string');
  if (nonce !== undefined && typeof nonce !== 'string') {
    throw invalidProof('malformed_proof', 'DPoP proof nonce is not a string');
  }
  const claims: DpopProofPayload = { jti, htm, htu, iat };
  if (ath !== undefined) claims.ath = ath;
  if (nonce !== undefined) claims.nonce = nonce;
  return claims;
}

async function checkNonce(nonce: string | undefined, expected: string | DpopNonceValidator): Promise<void> {
  // RFC 9449 §8: a missing or stale nonce is `use_dpop_nonce`, so the client retries with the fresh one.
  if (nonce === undefined)
    throw new DpopError('use_dpop_nonce', 'missing_nonce', 'DPoP proof must carry the server nonce');
  const valid = typeof expected === 'string' ? constantTimeEqual(nonce, expected) : await expected.isValid(nonce);
  if (!valid)
    throw new DpopError('use_dpop_nonce', 'invalid_nonce', 'DPoP proof nonce is not the current server nonce');
}

/** Undoes the jti write of a proof refused after it was sent; the refusal stands whatever the store answers. */
async function forgetIfRemembered(store: DpopReplayStore, key: string, remembered: Promise<boolean>): Promise<void> {
  try {
    if (await remembered) await store.forget(key);
  } catch {
    // A key the store may still hold expires with the proof's window; the proof is refused for its signature.
  }
}

/**
 * Verifies a DPoP proof with every check of RFC 9449 §4.3 and the replay rule of §11.1, in this order:
 * one header value (1), a well-formed JWT (2), `typ` dpop+jwt (4), an allowed asymmetric `alg` (5), a public-only
 * `jwk` (7), the required claims (3), `htm` (8), `htu` without query and fragment equal to the request URI after
 * RFC 3986 normalisation (9), the nonce (10), `iat` within ±(iatWindowSeconds + clockSkewSeconds) (11), `ath` and
 * the key binding (12), and last the signature by the `jwk` (6) and the `jti`, remembered until the proof could no
 * longer be accepted.
 *
 * For ES256 and ES384 the `jti` is sent to the store before the signature is checked, and the check runs while the
 * store answers (a Redis or database round trip): one proof then costs the longer of the two, not their sum. When
 * the signature fails, the `jti` the write recorded is forgotten again, so that a rejected proof never uses up its
 * `jti`. Until then, for one round trip, a genuine proof with the same key, target URI and `jti` would be refused as
 * a replay: a forger needs that `jti` before the genuine proof arrives, and whoever holds it could send the genuine
 * proof itself first, which the store refuses alike. Other algorithms are verified through jose before any claim
 * is read, as before.
 *
 * Throws a DpopError; returns the header, the claims and the key's RFC 7638 thumbprint.
 */
export async function verifyDpopProof(options: VerifyDpopProofOptions): Promise<VerifiedDpopProof> {
  const allowedAlgs = options.allowedSigningAlgs ?? DEFAULT_DPOP_ALGS;
  checkAllowedAlgs(allowedAlgs);
  const windowSeconds = options.iatWindowSeconds ?? DEFAULT_IAT_WINDOW_SECONDS;
  const skewSeconds = options.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  checkWindow(windowSeconds, 'iatWindowSeconds');
  checkWindow(skewSeconds, 'clockSkewSeconds');
  const requestUri = normalizeHttpUri(options.httpUrl);
  if (requestUri === null) throw new TypeError('httpUrl must be an absolute http or https URL');

  const proof = readDpopHeader(options.dpopProof);
  const decoded = decodeDpopProof(proof);

  const { typ, alg, jwk } = decoded.header;
  if (typeof typ !== 'string' || normalizeTyp(typ) !== DPOP_JWT_TYPE) {
    throw invalidProof('invalid_typ', 'DPoP proof typ must be dpop+jwt');
  }
  if (typeof alg !== 'string' || !(allowedAlgs as readonly string[]).includes(alg)) {
    throw invalidProof('unsupported_alg', 'DPoP proof alg is not accepted');
  }
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) {
    throw invalidProof('invalid_jwk', 'DPoP proof header lacks a jwk');
  }
  const jwkObject = jwk as Record<string, unknown>;
  if (hasPrivateMembers(jwkObject)) throw invalidProof('private_jwk', 'DPoP proof jwk must not contain a private key');

  // ES256 and ES384 (the defaults) take the fast path: the key now, its signature after the claims, beside the
  // jti write. Other asymmetric algorithms a server allowed are verified through jose here.
  const fastKey = FAST_ALGS.has(alg) ? proofKey(jwkObject, alg) : undefined;
  const jwkThumbprint = fastKey ? fastKey.thumbprint : await verifyWithJose(proof, jwkObject, alg);

  const payload = readClaims(decoded.payload);
  if (payload.htm !== options.httpMethod)
    throw invalidProof('htm_mismatch', 'DPoP proof htm does not match the request');
  const htu = normalizeHtuClaim(payload.htu);
  if (htu === null || htu !== requestUri)
    throw invalidProof('htu_mismatch', 'DPoP proof htu does not match the request');

  if (options.expectedNonce !== undefined && options.expectedNonce !== null) {
    await checkNonce(payload.nonce, options.expectedNonce);
  }

  const nowMs = (options.now ?? new Date()).getTime();
  const limitSeconds = windowSeconds + skewSeconds;
  if (Math.abs(nowMs / 1000 - payload.iat) > limitSeconds) {
    throw invalidProof('iat_out_of_window', 'DPoP proof iat is outside the accepted window');
  }

  if (options.accessToken !== undefined && options.accessToken !== null) {
    if (payload.ath === undefined) throw invalidProof('missing_ath', 'DPoP proof lacks the ath of the access token');
    if (!constantTimeEqual(payload.ath, computeAccessTokenHash(options.accessToken))) {
      throw invalidProof('ath_mismatch', 'DPoP proof ath does not match the access token');
    }
  }

  if (options.expectedJwkThumbprint !== undefined && options.expectedJwkThumbprint !== null) {
    if (!constantTimeEqual(jwkThumbprint, options.expectedJwkThumbprint)) {
      throw new DpopError('invalid_token', 'jkt_mismatch', 'DPoP proof key does not match the token binding');
    }
  }

  // RFC 9449 §11.1: hold the jti while the proof is acceptable, i.e. until iat + window; one second more so
  // that the last acceptable instant is still covered by the stores' "expired when expiresAt <= now".
  const expiresAt = new Date((payload.iat + limitSeconds + 1) * 1000);
  const replayKey = dpopReplayKey(jwkThumbprint, htu, payload.jti);
  const remembered = options.replayStore.rememberOnce(replayKey, expiresAt);
  if (fastKey && !proofSignatureVerifies(proof, fastKey.key, alg)) {
    await forgetIfRemembered(options.replayStore, replayKey, remembered);
    throw invalidProof('invalid_signature', 'DPoP proof signature does not verify');
  }
  if (!(await remembered)) throw invalidProof('replayed_jti', 'DPoP proof jti has been used before');

  const header: DpopProofHeader = { typ, alg, jwk: jwkObject as JWK };
  return { header, payload, jwkThumbprint };
}
