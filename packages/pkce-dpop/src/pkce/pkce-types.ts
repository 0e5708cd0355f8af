/** PKCE shapes of spec 002 §2.2 (RFC 7636). */
export type PkceMethod = 'S256' | 'plain';

export const PKCE_METHODS: readonly PkceMethod[] = ['S256', 'plain'];

/** S256 only unless a caller opts into `plain` (RFC 9700 §2.1.1: `plain` only where S256 is impossible). */
export const DEFAULT_PKCE_METHODS: readonly PkceMethod[] = ['S256'];

export interface PkceData {
  codeVerifier: string;
  codeChallenge: string;
  codeChallengeMethod: PkceMethod;
}
