import type { JWK } from 'jose';
import type { CredentialFormat, CredentialQuery, TrustedIssuer } from '../queries.js';

/** Where a credential's revocation status is published (Token Status List §6.2; Bitstring Status List §2.1). */
export type StatusReference =
  | { kind: 'token_status_list'; uri: string; idx: number }
  | { kind: 'bitstring'; uri: string; idx: number; purpose: string };

/** What one verified presentation hands on to the status, DCQL and resolution steps. */
export interface VerifiedCredential {
  credentialQueryId: string;
  format: CredentialFormat;
  /** The raw presentation, for the replay digest. */
  presentation: string;
  issuer: string;
  issuerJwk: JWK;
  trustedIssuer: TrustedIssuer;
  /** The holder's public key (key-binding key, VP signer). */
  holderJwk: JWK;
  /** The DCQL view of the credential (dcql DcqlCredentialPresentation). */
  dcql: Record<string, unknown>;
  /** The object the query's claim paths apply to (SD-JWT: the disclosed payload; W3C: the `vc` object). */
  claimSource: Record<string, unknown>;
  /** The JWT payload of the credential (for `sub` and other registered claims). */
  jwtPayload: Record<string, unknown>;
  /** Every status entry of the credential (a W3C credential may carry one per purpose). */
  statuses: StatusReference[];
}

export interface PresentationContext {
  query: CredentialQuery;
  /** client_id of the request, with its prefix: the expected `aud` (OID4VP §14.2.2). */
  clientId: string;
  nonce: string;
  now: Date;
  kbJwtMaxAgeSeconds: number;
  clockSkewSeconds: number;
}
