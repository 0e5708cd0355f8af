import type { FastifyRequest } from 'fastify';

/** OpenID4VCI 1.0 §4.1.1, §6.1. */
export const PRE_AUTHORIZED_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** Whether the token request carries client credentials (RFC 6749 §2.3: Basic, or a secret in the body). */
export const presentsClientCredentials = (request: FastifyRequest, form: Record<string, string>): boolean =>
  /^basic /i.test(request.headers.authorization ?? '') || form.client_secret !== undefined;
