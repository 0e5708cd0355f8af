/** The parts of an authorization request that outlive the request itself (stored while the user logs in). */
export interface AuthorizationRequestFields {
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string | null;
  nonce: string | null;
  codeChallenge: string;
  codeChallengeMethod: string;
  dpopJkt: string | null;
}
