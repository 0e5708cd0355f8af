import { AppError } from '@tessera/platform';

/**
 * The error codes of the wallet-facing endpoints (OpenID4VCI 1.0 §8.3.1.2 credential, §9.3 deferred, §11.3
 * notification, §7.2 nonce), answered in the oauth envelope `{error, error_description}`.
 */
export type VciErrorCode =
  | 'invalid_credential_request'
  | 'unknown_credential_configuration'
  | 'unknown_credential_identifier'
  | 'invalid_proof'
  | 'invalid_nonce'
  | 'invalid_encryption_parameters'
  | 'credential_request_denied'
  | 'issuance_pending'
  | 'invalid_transaction_id'
  | 'invalid_notification_id'
  | 'invalid_notification_request';

export const vciError = (code: VciErrorCode, message: string, field?: string) =>
  new AppError('invalid_request', message, { wireCode: code, ...(field === undefined ? {} : { field }) });

/**
 * A refused access token at the credential endpoint (RFC 6750 §3.1, RFC 9449 §7.1): 401 with the challenge of the
 * scheme the token was bound to (or would have to be).
 */
export const tokenError = (
  scheme: 'DPoP' | 'Bearer',
  code: 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce',
  message: string,
  algs = 'ES256 ES384',
) =>
  new AppError('invalid_token', message, {
    wireCode: code,
    headers: {
      'www-authenticate':
        scheme === 'DPoP'
          ? `DPoP error="${code}", error_description="${message.replace(/["\\]/g, '')}", algs="${algs}"`
          : `Bearer error="${code}", error_description="${message.replace(/["\\]/g, '')}"`,
    },
  });

/** 001 §5: a tenant with no tenant_public_endpoint binding is refused, with no fallback. */
export const noBinding = () =>
  new AppError('not_found', 'This tenant publishes no credential issuer (no tenant_public_endpoint binding).');

export const offerInvalid = (message: string, field?: string) =>
  new AppError('invalid_request', message, field === undefined ? {} : { field });
