import type { DcqlCredential } from 'dcql';
import type { JWK } from 'jose';

export interface TrustedIssuer {
  iss: string;
  publicJwk: JWK;
}

export interface VerifiedPresentation {
  format: 'dc+sd-jwt' | 'jwt_vc_json';
  issuer: string;
  /** The disclosed claims: the processed SD-JWT payload, or the VC's credentialSubject. */
  claims: Record<string, unknown>;
  dcql: DcqlCredential;
  /** The KB-JWT or VP JWT, remembered to detect replays across sessions. */
  bindingProof: string;
}
