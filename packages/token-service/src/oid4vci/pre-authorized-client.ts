import { CREDENTIAL_CODE_PREFIX } from './credential-authorization.js';

/** OpenID4VCI 1.0 §4.1.1, §6.1. */
export const PRE_AUTHORIZED_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** Whether the token request carries client credentials (RFC 6749 §2.3: Basic, or a secret in the body). */
export const presentsClientCredentials = (authorization: string | undefined, form: Record<string, string>): boolean =>
  /^basic /i.test(authorization ?? '') || form.client_secret !== undefined;

/** A token request of an OpenID4VCI grant: the pre-authorized code, or a code of a credential request. */
export const isCredentialGrant = (form: Record<string, string>): boolean =>
  form.grant_type === PRE_AUTHORIZED_CODE_GRANT ||
  (form.grant_type === 'authorization_code' && (form.code ?? '').startsWith(CREDENTIAL_CODE_PREFIX));

export function withoutResource(form: Record<string, string>): Record<string, string> {
  const rest = { ...form };
  delete rest.resource;
  return rest;
}
