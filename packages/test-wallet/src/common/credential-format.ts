/** The two credential formats of OpenID4VP 1.0 Appendix B this package issues and presents. */
export type CredentialFormat = 'dc+sd-jwt' | 'jwt_vc_json';

export const CREDENTIAL_FORMATS: readonly CredentialFormat[] = ['dc+sd-jwt', 'jwt_vc_json'];

/** A credential as the test issuer hands it out: the compact serialization plus what a test wants to know. */
export interface IssuedCredential {
  format: CredentialFormat;
  /** Compact serialization: `<jwt>~<disclosure>~...~` for SD-JWT VC, a JWT for jwt_vc_json. */
  raw: string;
  /** Status list index, when the credential carries a status entry. */
  statusIndex?: number;
}

export function isCredentialFormat(value: string): value is CredentialFormat {
  return (CREDENTIAL_FORMATS as readonly string[]).includes(value);
}

/** Guesses the format of a compact credential: an SD-JWT always contains the `~` separator (RFC 9901 §4). */
export function detectCredentialFormat(raw: string): CredentialFormat {
  return raw.includes('~') ? 'dc+sd-jwt' : 'jwt_vc_json';
}

export function toIssuedCredential(credential: IssuedCredential | string): IssuedCredential {
  return typeof credential === 'string' ? { format: detectCredentialFormat(credential), raw: credential } : credential;
}
