import type { CredentialFormat, IssuedCredential } from '../common/credential-format.js';
import type { CapturedResponse } from './captured-response.js';

/**
 * Options of `wallet.respond()`. Without any option the wallet answers as the standards ask. Every other option
 * produces one hostile variant a verifier must reject (OpenID4VP 1.0 §14, RFC 9901 §7, HAIP 1.0); each changes
 * only what it names, so a test can tell which check caught it.
 */
export interface RespondOptions {
  /** Consider only held credentials of these formats when answering the DCQL query. */
  formats?: CredentialFormat[];
  /**
   * Consider only the held credential of this id (`wallet.credentials()[n].id`). Without it, credentials received
   * from an issuer (`wallet.receive()`) are preferred over the others, the most recently received first.
   */
  credentialId?: string;
  /**
   * Present this credential instead of the one DCQL picks (for example one from an untrusted issuer, or a revoked
   * one). It answers the first credential query of its format, or the first credential query.
   */
  useCredential?: IssuedCredential | string;
  /** Apply the per-presentation variants below only to this credential query id (default: to every presentation). */
  hostileOnly?: string;

  /** KB-JWT / VP JWT `nonce` differs from the request nonce (OpenID4VP 1.0 §14.1). */
  wrongNonce?: boolean;
  /** KB-JWT / VP JWT `aud` differs from the client_id (OpenID4VP 1.0 §14.1, RFC 9901 §7.3). */
  wrongAudience?: boolean;
  /** Seconds added to the KB-JWT / VP JWT `iat` (negative: in the past). */
  kbIatOffsetSeconds?: number;
  /** SD-JWT VC without KB-JWT; jwt_vc_json credential sent bare, without a VP. */
  omitKeyBinding?: boolean;
  /** KB-JWT `typ` other than kb+jwt (RFC 9901 §4.3). */
  keyBindingTyp?: string;
  /** KB-JWT `sd_hash` over something else than the presented SD-JWT (RFC 9901 §4.3.1). */
  wrongSdHash?: boolean;
  /** KB-JWT or VP JWT signed with a key other than the bound holder key. */
  wrongHolderKey?: boolean;
  /**
   * SD-JWT VC: alter the value inside a disclosed Disclosure (the named claim, or the first), so its digest no longer
   * matches; jwt_vc_json: alter a credentialSubject value inside the credential, breaking the issuer signature.
   */
  tamperDisclosure?: boolean | string;
  /** Add a well-formed Disclosure that no digest references (RFC 9901 §7.1 step 4). SD-JWT VC only. */
  extraUnreferencedDisclosure?: boolean;
  /** Send one disclosed Disclosure twice (RFC 9901 §7.1). SD-JWT VC only. */
  duplicateDisclosure?: boolean;
  /** Withhold this requested claim (matched by the last element of its path). SD-JWT VC only. */
  dropClaim?: string;
  /** Replace the issuer signature with `alg: none` (RFC 9901 §7.1 step 2). SD-JWT VC only. */
  stripIssuerSignature?: boolean;

  /** Post the presentation under this credential query id instead of its own (an unknown id, §14.11). */
  credentialQueryId?: string;
  /** Leave this credential query id out of the vp_token (a missing required id). */
  omitCredentialQuery?: string;
  /** Post a previously captured vp_token unchanged to this new request (replay into a new session). */
  replayFrom?: CapturedResponse | Record<string, string[]>;
  /** Post this `state` instead of the request's. */
  overrideState?: string;
}

export const SD_JWT_ONLY_OPTIONS = [
  'extraUnreferencedDisclosure',
  'duplicateDisclosure',
  'dropClaim',
  'stripIssuerSignature',
] as const;
