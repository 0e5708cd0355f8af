/**
 * Why the wallet stopped before posting a response, or before storing an offered credential; `code` is stable for
 * tests and the CLI.
 */
export type WalletErrorCode =
  | 'invalid_link'
  | 'insecure_url'
  | 'request_fetch_failed'
  | 'request_redirected'
  | 'request_content_type'
  | 'invalid_request_object'
  | 'untrusted_verifier'
  | 'unsupported_request'
  | 'response_post_failed'
  | 'no_matching_credentials'
  | 'unknown_credential'
  | 'invalid_offer'
  | 'unsupported_offer'
  | 'pin_required'
  | 'issuer_unreachable'
  | 'issuance_refused'
  | 'unknown_holder_key'
  | 'invalid_option'
  | 'nothing_captured';

export class WalletError extends Error {
  constructor(
    readonly code: WalletErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WalletError';
  }
}
