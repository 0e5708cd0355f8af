/**
 * What an OpenID4VCI authorization request authorized (§5.1): the issuance session its `issuer_state` names, and
 * the credential configurations asked for by `authorization_details` or a credential scope, among those the offer
 * bound to that issuer_state.
 */
export interface CredentialAuthorization {
  issuerStateHash: string;
  correlationId: string;
  configurationIds: string[];
}

/**
 * Authorization codes of this flow carry this prefix (a code is otherwise base64url, which has no '.'), so that the
 * token endpoint tells them apart without a lookup and exchanges them for the credential endpoint's token.
 */
export const CREDENTIAL_CODE_PREFIX = 'vci.';
